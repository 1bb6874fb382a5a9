# Quick start: `make demo`, `make test`. Each target creates .venv when missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench docs lint clean fuzz

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
	$(BIN)/python -m compileall -q -j 0 xmux dialects transforms lowering runtime tests
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/lit -sv tests/filecheck examples/gpu
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/python -m pytest -q -n 2 tests

fuzz: $(STAMP)
	XMUX_CACHE=0 XMUX_CHECK_PLAN=1 $(BIN)/python -m tests.fuzz.harness campaign --n $(N) --seed $(SEED) $(FUZZFLAGS) \
		--jobs $(JOBS) --out fuzz-failures/seed$(SEED)-n$(N)

bench: $(STAMP)
	$(BIN)/python bench/run.py

docs: $(STAMP)
	$(BIN)/python docs/gen_passes.py

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) build *.egg-info .xmux-cache
