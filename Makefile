# Set-up and build targets. `make serve` and `make test` are all a new reader needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve test install outputs check check-full site lock bench lighthouse clean

$(STAMP): requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	touch $(STAMP)

install: $(STAMP)  ## create .venv and install the pinned dependencies (idempotent)

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

test: install  ## run the whole test suite
	$(BIN)/python -m pytest

bench: install  ## time naive vs tiled attention (not part of the byte-checked build)
	$(BIN)/python -m scripts.bench

lighthouse: site  ## Lighthouse (npm, mobile) performance and accessibility of every page of site/, served with gzip
	$(BIN)/python -m scripts.lighthouse

lock:  ## re-resolve pyproject.toml into requirements.lock in a scratch venv
	rm -rf .cache/lock-venv && $(PYTHON) -m venv .cache/lock-venv
	$(PYTHON) -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; \
	  print('\n'.join(p['dependencies'] + p['optional-dependencies']['test']))" > .cache/requirements.in
	.cache/lock-venv/bin/python -m pip install --quiet --disable-pip-version-check -r .cache/requirements.in
	.cache/lock-venv/bin/python -m pip freeze > requirements.lock

clean:
	rm -rf site .cache
