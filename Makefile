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
# PYTHONDONTWRITEBYTECODE set, every such process of pytest would compile xmux's sources again
test: $(STAMP)
	$(BIN)/ruff check .
	$(LINT_IMPORTS)
	$(BIN)/python -m compileall -q -j 0 xmux abi dialects transforms lowering runtime tests
	$(MAKE) docs
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/lit -sv tests/filecheck examples/gpu
	# ... and "as on" AVX2 (AMD, Intel) and AVX-512 hosts: passes read the module's target,
	# so the IR must not change (kernels run where this host can execute the model's code).
	# Passes cannot ask the host (pyproject's "passes never read the host" contract), so the
	# tests where the host could show are those of the passes that read the target and
	# those that attach one or run kernels (MODEL_TESTS)
	for cpu in znver3 haswell skylake-avx512; do \
		XMUX_CPU=$$cpu PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/lit -s $(MODEL_TESTS) || exit 1; \
	done
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/python -m pytest -q -n 2 tests

# the FileCheck tests of the passes that read the module's target, and every test that
# attaches a target, names one or runs kernels
TARGET_PASS_TESTS := attach_target add_floating_point_control disable_neon_attribute \
	expand_math transfer_kernel_metadata work_item_loop_vectorize_hints \
	work_item_unroll_and_jam work_item_loops convert_to_llvm debug_info
MODEL_TESTS = $$( (ls -d $(addprefix tests/filecheck/,$(TARGET_PASS_TESTS)); \
	grep -rlE 'xmux-run|attach-target|xmux\.target|host-runs-target' tests/filecheck \
	--include='*.mlir' | grep -v /inputs/) | sort -u)

fuzz: $(STAMP)
	XMUX_CACHE=0 XMUX_CHECK_PLAN=1 $(BIN)/python -m tests.fuzz.harness campaign --n $(N) --seed $(SEED) $(FUZZFLAGS) \
		--jobs $(JOBS) --out fuzz-failures/seed$(SEED)-n$(N)

bench: $(STAMP)
	$(BIN)/python bench/run.py

# docs/passes.md from the pass docstrings, then the site (guide, API reference, pass and
# dialect pages) into build/docs/html; -E re-reads every page, so that -W sees every warning
docs: $(STAMP)
	$(BIN)/python docs/gen_passes.py
	$(BIN)/sphinx-build -E -W --keep-going -q docs build/docs/html

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
