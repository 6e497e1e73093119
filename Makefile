# Set-up and build targets. `make serve` and `make test` are all a new reader needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check
export NO_MKDOCS_2_WARNING := 1

# One .venv, two installs: what building and serving the site needs (requirements.lock), and the test tools on
# top (requirements-test.lock: the same pins plus pytest, Hypothesis, Playwright, axe). Each stamp is redone
# when its lock changes, so `make test` after `make serve` installs only the rest.
SITE_STAMP := $(VENV)/.installed-site
TEST_STAMP := $(VENV)/.installed-test

# Published versions (mike, into the gh-pages branch): `make deploy` deploys the current checkout as `dev`;
# `make deploy VERSION=1.2` deploys release tag v1.2. `latest` follows the newest release tag (or `dev` while
# there is none), and the site's root redirects to it.
VERSION ?= dev
NEWEST_TAG = $(shell git tag --list 'v*' --sort=-version:refname | head -n 1)
LATEST = $(if $(NEWEST_TAG),$(filter v$(VERSION),$(NEWEST_TAG)),$(filter dev,$(VERSION)))
MIKE_PUSH ?=

.PHONY: serve test test-fast install install-test outputs check check-full site deploy publish lock bench lighthouse clean

$(SITE_STAMP): requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) -r requirements.lock
	touch $@

$(TEST_STAMP): requirements-test.lock $(SITE_STAMP)
	$(PIP) -r requirements-test.lock
	touch $@

install: $(SITE_STAMP)  ## create .venv and install what the site needs (idempotent)

install-test: $(TEST_STAMP)  ## the same, plus the test tools

outputs: install  ## rerun the snippets whose sources changed; regenerate notebooks
	$(BIN)/python -m scripts.pipeline build

check: install  ## prove the committed outputs match the sources; change nothing
	$(BIN)/python -m scripts.pipeline check

check-full: install  ## the same, and rerun every snippet to compare the bytes
	$(BIN)/python -m scripts.pipeline check --full

site: install  ## build the static site into site/ (strict: any warning fails)
	$(BIN)/mkdocs build --strict

serve: outputs  ## serve the site at http://127.0.0.1:8000 (reruns edited snippets on save)
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

test: install-test  ## run the whole test suite
	$(BIN)/python -m pytest

test-fast: install-test  ## the tests that need no site build, browser or notebook kernel
	$(BIN)/python -m pytest tests/core tests/build tests/chapters -m "not site and not kernel"

deploy: install  ## build the site as version $(VERSION) into the local gh-pages branch (mike)
	PATH="$(abspath $(BIN)):$$PATH" VERSION_PROVIDER=mike $(BIN)/mike deploy --update-aliases $(VERSION) $(if $(LATEST),latest) $(MIKE_PUSH)
	$(BIN)/mike set-default latest $(MIKE_PUSH)

publish: MIKE_PUSH := --push
publish: export LEDGER_REQUIRE_STATUSES := 1
publish: deploy  ## deploy, then push gh-pages to origin; fails unless the ledger shows a complete test run of this commit

bench: install  ## time naive vs tiled attention (not part of the byte-checked build)
	$(BIN)/python -m scripts.bench

LIGHTHOUSE_RUNS ?= 1

lighthouse: site  ## Lighthouse (npm, mobile) performance and accessibility of every page of site/, served with gzip
	$(BIN)/python -m scripts.lighthouse --runs $(LIGHTHOUSE_RUNS)

# Resolve site + test tools first, then the site alone constrained to those pins: both locks agree exactly.
lock:  ## re-resolve pyproject.toml into requirements.lock and requirements-test.lock in scratch venvs
	mkdir -p .cache
	$(PYTHON) -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; \
	  print('\n'.join(p['dependencies']))" > .cache/requirements.in
	$(PYTHON) -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; \
	  print('\n'.join(p['dependencies'] + p['optional-dependencies']['test']))" > .cache/requirements-test.in
	rm -rf .cache/lock-venv && $(PYTHON) -m venv .cache/lock-venv
	.cache/lock-venv/bin/python -m pip install --quiet --disable-pip-version-check -r .cache/requirements-test.in
	.cache/lock-venv/bin/python -m pip freeze > requirements-test.lock
	rm -rf .cache/lock-venv && $(PYTHON) -m venv .cache/lock-venv
	.cache/lock-venv/bin/python -m pip install --quiet --disable-pip-version-check \
	  -r .cache/requirements.in -c requirements-test.lock
	.cache/lock-venv/bin/python -m pip freeze > requirements.lock
	rm -rf .cache/lock-venv

clean:
	rm -rf site .cache
