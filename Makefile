# Set-up and build targets. `make serve` and `make test` are all a new reader needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
UV := $(BIN)/uv
UV_VERSION := 0.13.8
export NO_MKDOCS_2_WARNING := 1

# One .venv, two installs: what building and serving the site needs (requirements.lock), and the test tools on
# top (requirements-test.lock: the same pins plus pytest, Hypothesis, Playwright, axe, xdist). uv (from PyPI, into
# the .venv) installs them and checks every file against the lock's sha256 hashes: a changed or substituted wheel
# fails the install, naming the package. Like pip, it compiles the packages' bytecode as it installs them (every
# process of the build and the suite would otherwise compile what it imports, where PYTHONDONTWRITEBYTECODE is set).
# Each stamp is redone when its lock changes, so `make test` after `make serve` installs only the rest.
SITE_STAMP := $(VENV)/.installed-site
TEST_STAMP := $(VENV)/.installed-test
INSTALL = $(UV) pip install --quiet --python $(BIN)/python --require-hashes --compile-bytecode -r

# $(call timed,STEP,COMMAND): run COMMAND, then print how long STEP took (GNU date); fail as COMMAND fails.
timed = start=$$(date +%s%N); $(2); status=$$?; ms=$$(( ($$(date +%s%N) - start) / 1000000 )); \
  echo "$(1) took $$((ms / 1000)).$$((ms % 1000 / 100)) s"; exit $$status

# Published versions (mike, into the gh-pages branch): `make deploy` deploys the current checkout as `dev`;
# `make deploy VERSION=1.2` deploys release tag v1.2. `latest` follows the newest release tag (or `dev` while
# there is none), and the site's root redirects to it.
VERSION ?= dev
# The published site's root (the publish workflow sets it, e.g. https://owner.github.io/repo/): each page of version
# $(VERSION) then has its canonical and hreflang addresses under $(SITE_URL)$(VERSION)/ (mike appends the version)
# and each edition's sitemap.xml lists them. Empty: pages carry relative links only (scripts/addresses.py).
SITE_URL ?=
NEWEST_TAG = $(shell git tag --list 'v*' --sort=-version:refname | head -n 1)
LATEST = $(if $(NEWEST_TAG),$(filter v$(VERSION),$(NEWEST_TAG)),$(filter dev,$(VERSION)))
MIKE_PUSH ?=

.PHONY: serve test test-fast lint install install-test outputs check check-full site deploy publish lock bench lighthouse clean

$(UV):
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

$(SITE_STAMP): requirements.lock | $(UV)
	@$(call timed,install (requirements.lock),$(INSTALL) requirements.lock)
	touch $@

$(TEST_STAMP): requirements-test.lock $(SITE_STAMP)
	@$(call timed,install (requirements-test.lock),$(INSTALL) requirements-test.lock)
	touch $@

install: $(SITE_STAMP)  ## create .venv and install what the site needs (idempotent)

install-test: $(TEST_STAMP)  ## the same, plus the test tools

outputs: install  ## rerun the snippets whose sources changed; regenerate notebooks
	@$(call timed,outputs,$(BIN)/python -m scripts.pipeline build)

check: install  ## prove the committed outputs match the sources; change nothing
	$(BIN)/python -m scripts.pipeline check

check-full: install  ## the same, and rerun every snippet to compare the bytes
	$(BIN)/python -m scripts.pipeline check --full

site: install  ## build the static site into site/ (strict: any warning fails)
	@$(call timed,site (both editions),$(BIN)/mkdocs build --strict)

serve: outputs  ## serve the site at http://127.0.0.1:8000 (reruns edited snippets on save)
	$(BIN)/mkdocs serve --dirty --dev-addr 127.0.0.1:8000

# ruff (pinned in requirements-test.lock, configured in pyproject.toml): zero lint findings and nothing to reformat.
lint: install-test  ## ruff check and ruff format --check over the repository; change nothing
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

# The suite runs on every CPU (pytest-xdist); the site is built once for all workers (tests/conftest.py).
# make test-fast runs fewer Hypothesis examples per property (HYPOTHESIS_PROFILE=fast); make test and CI run 1000.
PYTEST := $(BIN)/python -m pytest -n auto

test: install-test lint  ## lint, then run the whole test suite
	$(PYTEST)

test-fast: install-test lint  ## lint, then the tests that need no site build, browser or notebook kernel
	HYPOTHESIS_PROFILE=fast $(PYTEST) tests/core tests/build tests/chapters -m "not site and not kernel and not slow"

deploy: install  ## build the site as version $(VERSION) into the local gh-pages branch (mike)
	PATH="$(abspath $(BIN)):$$PATH" VERSION_PROVIDER=mike SITE_URL="$(SITE_URL)" $(BIN)/mike deploy --update-aliases $(VERSION) $(if $(LATEST),latest) $(MIKE_PUSH)
	$(BIN)/mike set-default latest $(MIKE_PUSH)

publish: MIKE_PUSH := --push
publish: export LEDGER_REQUIRE_STATUSES := 1
publish: deploy  ## deploy, then push gh-pages to origin; fails unless the ledger shows a complete test run of this commit

bench: install  ## time naive vs tiled attention (not part of the byte-checked build)
	$(BIN)/python -m scripts.bench

LIGHTHOUSE_RUNS ?= 1

lighthouse: site  ## Lighthouse (npm, mobile) performance and accessibility of every page of site/, served with gzip
	$(BIN)/python -m scripts.lighthouse --runs $(LIGHTHOUSE_RUNS)

# Resolve site + test tools first, then the site alone constrained to those pins: both locks agree exactly. uv keeps
# each lock's current pins where pyproject.toml still allows them (delete a lock to re-resolve it from scratch) and
# writes every file's sha256 hash; plain pip reads the result too (`pip install --require-hashes -r ...`).
COMPILE = $(UV) pip compile --quiet --python $(BIN)/python --generate-hashes --custom-compile-command "make lock" pyproject.toml

lock: | $(UV)  ## re-resolve pyproject.toml into requirements-test.lock, then requirements.lock at the same pins (with hashes)
	$(COMPILE) --extra test -o requirements-test.lock
	$(COMPILE) -c requirements-test.lock -o requirements.lock

clean:
	rm -rf site .cache
