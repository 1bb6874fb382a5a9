# Quick start: `make demo`, `make test`. Each target creates .venv when missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench docs lint lint-imports clean fuzz

# make fuzz N=10000 SEED=0 JOBS=2: a differential fuzzing campaign of the barrier scheduler
# (tests/fuzz/README.md); repros of mismatches in fuzz-failures/
N ?= 1000
SEED ?= 0
JOBS ?= 2

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python examples/run_demo.py

# lit runs its RUN lines on every core (lit's default); each line is a fresh xmux-opt /
# xmux-run process (bench/startup.py), so the bytecode is compiled once first: with
# PYTHONDONTWRITEBYTECODE set, every such process of pytest would compile xmux's sources again.
# The site and lit run beside pytest, their output kept in build/ and shown after pytest's:
# each of lit and pytest keeps both cores busy for most of its run, but their start-up and
# last tests and the single-threaded sphinx leave one idle (docs/passes.md is written before:
# a test reads it). A failure of any of the three fails the target; an interrupt stops all
# three (a non-interactive shell's background jobs ignore SIGINT).
test: $(STAMP)
	$(BIN)/ruff check .
	$(LINT_IMPORTS)
	$(BIN)/python -m compileall -q -j 0 xmux abi dialects transforms lowering runtime tests
	$(BIN)/python docs/gen_passes.py
	mkdir -p build
	$(SPHINX) >build/test-docs.log 2>&1 & docs=$$!; \
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/lit -sv $(LIT_SUITES) >build/test-lit.log 2>&1 & lit=$$!; \
	trap 'kill $$docs $$lit 2>/dev/null; exit 130' INT TERM; \
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/python -m pytest -q -n 2 --dist worksteal tests; pytest=$$?; \
	wait $$docs; docs=$$?; wait $$lit; lit=$$?; \
	echo "--- make docs (sphinx):"; cat build/test-docs.log; \
	echo "--- lit:"; cat build/test-lit.log; \
	test $$pytest = 0 && test $$docs = 0 && test $$lit = 0

# lit's suites: tests/filecheck and examples/gpu, and the tests of tests/filecheck where the
# host could show again "as on" AVX2 (AMD, Intel) and AVX-512 hosts: passes read the module's
# target, so the IR must not change (kernels run where this host can execute the model's
# code). Passes cannot ask the host (pyproject's "passes never read the host" contract), so
# the tests where the host could show are those of the passes that read the target and those
# that attach one or run kernels (tests/lit_models.py's MODEL_TESTS, a suite per CPU model
# in tests/lit_models/). One lit run: one fork server and one pool of workers for all
LIT_SUITES := tests/filecheck examples/gpu \
	$(addprefix tests/lit_models/,znver3 haswell skylake-avx512)

fuzz: $(STAMP)
	XMUX_CACHE=0 XMUX_CHECK_PLAN=1 $(BIN)/python -m tests.fuzz.harness campaign --n $(N) --seed $(SEED) $(FUZZFLAGS) \
		--jobs $(JOBS) --out fuzz-failures/seed$(SEED)-n$(N)

bench: $(STAMP)
	$(BIN)/python bench/run.py

# docs/passes.md from the pass docstrings, then the site (guide, API reference, pass and
# dialect pages) into build/docs/html; -E re-reads every page, so that -W sees every warning
docs: $(STAMP)
	$(BIN)/python docs/gen_passes.py
	$(SPHINX)

SPHINX = $(BIN)/sphinx-build -E -W --keep-going -q docs build/docs/html

lint: $(STAMP)
	$(BIN)/ruff check .
	$(LINT_IMPORTS)

# the layers contract of pyproject.toml ([tool.importlinter]). lint-imports finds a package by
# its folder, and xmux's layers are folders of their own (pyproject's package-dir: keep the
# list below in step), so it reads a tree of links laid out as the installed package,
# xmux/{*.py, abi, dialects, ...}, made afresh in a temporary folder for each run
LINT_IMPORTS = tree=$$(mktemp -d) && mkdir $$tree/xmux && \
	ln -s $(CURDIR)/xmux/*.py $$tree/xmux/ && \
	for d in $(CURDIR)/xmux/*/ $(CURDIR)/abi $(CURDIR)/dialects $(CURDIR)/transforms \
		$(CURDIR)/lowering $(CURDIR)/runtime; do \
		test ! -f $$d/__init__.py || ln -s $${d%/} $$tree/xmux/; done && \
	(cd $$tree && $(CURDIR)/$(BIN)/lint-imports --no-cache $(CURDIR)/pyproject.toml); \
	status=$$?; rm -rf $$tree; exit $$status

lint-imports: $(STAMP)
	$(LINT_IMPORTS)

clean:
	rm -rf $(VENV) build *.egg-info .xmux-cache
