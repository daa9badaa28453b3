# Nessie — build and test.
#   make          build every binary into bin/ (nessie, nessie-gen, nessie-bench, ...)
#   make test     install missing packages, build (plain and ASan+UBSan), run every test
#   make run      the README's main job (experiments/tour.sh): pictures and profile in build/run
#   make pictures the README's pictures of fusion clusters (experiments/pictures.sh)
#   make deps     install missing Debian packages (.ci/install-deps)
#   make plots    the solver-performance and fusion-quality experiments into results/
#                 (SIZE=tiny|small|default|large, JOBS=2; default takes about 20 minutes)
#   make costmodel  calibrate the sized cost model and validate both models against time
# Under CI=true warnings are errors.

CC      ?= cc
ifeq ($(origin CC),default)
CC      := gcc
endif
OPT     ?= -O2
CSTD    := -std=c11 -D_GNU_SOURCE
WARN    := -Wall -Wextra -Wno-unused-parameter
ifeq ($(CI),true)
WARN    += -Werror
endif

# Libraries (Debian: libglpk-dev, coinor-libcbc-dev with coinor-libclp-dev, libgraphviz-dev).
PKGS      := cbc libgvc
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LIBS      := -lglpk $(PKG_LIBS) -lm -fopenmp

# SAN=1 builds the same tree with AddressSanitizer + UBSan into build/asan.
ifeq ($(SAN),1)
O       := build/asan
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT     := -O1
else
O       := build/plain
SANFLAGS :=
endif
B       := $(if $(filter 1,$(SAN)),$(O)/bin,bin)

# Every .c under these folders is library code, except the mains listed below.
LIBDIRS := compiler fusion runtime/host generators/lib
MAINS   := compiler/driver/nessie.c generators/nessie-gen.c generators/nessie-neslgen.c \
           experiments/nessie-bench.c
ALLSRC  := $(shell find $(LIBDIRS) -name '*.c' 2>/dev/null | sort)
LIBSRC  := $(filter-out $(MAINS) compiler/driver/%,$(ALLSRC))
DRVSRC  := $(wildcard compiler/driver/*.c)
INCDIRS := $(sort $(dir $(shell find $(LIBDIRS) -name '*.h' 2>/dev/null)))
CFLAGS  := $(CSTD) $(OPT) -g $(WARN) $(SANFLAGS) -fopenmp $(addprefix -I,$(INCDIRS)) $(PKG_CFLAGS) -MMD -MP
LDFLAGS := $(SANFLAGS)

LIBOBJ  := $(LIBSRC:%.c=$(O)/%.o)
# The NESL basis library (basis/*.nesl) is embedded into the binary as a generated C file.
NESL_BASIS := $(sort $(wildcard basis/*.nesl))
LIBOBJ  += $(O)/gen/nesl_basis.o
LIBA    := $(O)/libnessie.a
UNITSRC := $(wildcard tests/unit/*.c)
UNITBIN := $(UNITSRC:tests/unit/%.c=$(O)/tests/unit/%)

# The runtime that generated programs link against, next to the nessie binary
# that finds it (runtime/README.md): the runtime's objects, the λcu value code
# it prints and parses with, and the common utilities those use.
RTLIB   := $(B)/nessie-rt/libnessie_rt.a
RTHDR   := $(B)/nessie-rt/include/nessie_rt.h
# The CUDA runtime's sources, compiled by nvcc with each --target=cuda program.
RTCUDA  := $(patsubst runtime/cuda/%,$(B)/nessie-rt/cuda/%,$(wildcard runtime/cuda/*.h runtime/cuda/*.cuh runtime/cuda/*.cu runtime/cuda/*.c))
RTOBJ   := $(filter $(O)/runtime/host/% $(O)/compiler/lcu/% $(O)/compiler/common/%,$(LIBOBJ))

BINS    := $(RTLIB) $(RTHDR) $(RTCUDA) $(B)/nessie $(if $(wildcard generators/nessie-gen.c),$(B)/nessie-gen) \
           $(if $(wildcard generators/nessie-neslgen.c),$(B)/nessie-neslgen) \
           $(if $(wildcard experiments/nessie-bench.c),$(B)/nessie-bench)

.PHONY: all test run deps clean asan unit format fuzz fuzz-lcu plots bench test-gpu pictures experiments costmodel
all: $(BINS) $(UNITBIN)

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(O)/gen/nesl_basis.c: $(NESL_BASIS) compiler/nesl/embed.sh
	bash compiler/nesl/embed.sh $@ $(NESL_BASIS)
$(O)/gen/nesl_basis.o: $(O)/gen/nesl_basis.c
	$(CC) $(CFLAGS) -c $< -o $@

$(LIBA): $(LIBOBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(RTLIB): $(RTOBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(RTHDR): runtime/host/nessie_rt.h
	@mkdir -p $(dir $@)
	cp $< $@

$(B)/nessie-rt/cuda/%: runtime/cuda/%
	@mkdir -p $(dir $@)
	cp $< $@

$(B)/nessie: $(DRVSRC:%.c=$(O)/%.o) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/nessie-gen: $(O)/generators/nessie-gen.o $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/nessie-neslgen: $(O)/generators/nessie-neslgen.o $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/nessie-bench: $(O)/experiments/nessie-bench.o $(O)/experiments/calibrate.o $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(O)/tests/unit/%: $(O)/tests/unit/%.o $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

asan:
	$(MAKE) SAN=1 all

deps:
	@bash .ci/install-deps

# The test command of the README: both builds, then every suite against both.
# The builds run two compilers at a time (BUILD_JOBS) unless make was given -j.
BUILD_JOBS ?= 2
test: deps
	@bash .ci/find-cuda >/dev/null && echo "CUDA toolkit: $$(bash .ci/find-cuda)" || bash .ci/find-cuda
	$(MAKE) $(if $(findstring j,$(MAKEFLAGS)),,-j$(BUILD_JOBS)) all
	$(MAKE) $(if $(findstring j,$(MAKEFLAGS)),,-j$(BUILD_JOBS)) SAN=1 all
	@bash tests/run.sh bin build/asan/bin

# On a machine with a GPU: every test program built with --target=cuda and run against
# the interpreter (tests/cuda/run_gpu.sh; JOBS parallel builds), then the CUDA benchmarks
# into results/cuda-DATE (experiments/cuda/bench.sh). Skips (77) without nvcc or a GPU.
test-gpu: all
	JOBS=$(JOBS) bash tests/cuda/run_gpu.sh bin
	bash experiments/cuda/bench.sh

# The main job (README "A tour"): a real NESL program (tests/nesl/nbody.nesl) run,
# flattened and fused, its clusters drawn, the schedulers compared, compiled (C back
# end; CUDA where a GPU is present), run and profiled: experiments/tour.sh, into build/run.
run: deps
	$(MAKE) all
	bash experiments/tour.sh bin build/run

# The committed pictures of the README (fusion clusters): experiments/pictures.sh.
pictures: all
	bash experiments/pictures.sh bin

SIZE ?= default
JOBS ?= 2
plots: deps
	$(MAKE) all
	bash experiments/sweep.sh --size=$(SIZE) --jobs=$(JOBS) --out=results

# The NESL benchmark programs x fusion schedulers, end to end (experiments/programs.sh,
# issue 28): results/programs.csv, programs-*.csv|svg|png. SIZE=tiny checks the pipeline
# only; JOBS parallel builds (the timed runs go one at a time). Then the cost-model
# validation (costmodel.py below) at small size (tiny with SIZE=tiny).
experiments: deps
	$(MAKE) all
	bash experiments/programs.sh --size=$(SIZE) --jobs=$(JOBS) --out=results
	python3 experiments/costmodel.py --size=$(if $(filter default,$(SIZE)),small,$(SIZE)) --runs=5 --max-runs=15 --out=results

# Does a cost model rank schedules as their times do? (experiments/costmodel.py):
# calibrate, then every program's named, ILP (unit and sized) and random schedules,
# interleaved runs, Spearman's rho per program. SIZE=small by default here.
costmodel: deps
	$(MAKE) all
	python3 experiments/costmodel.py --size=$(if $(filter default,$(SIZE)),small,$(SIZE)) --runs=5 --max-runs=15 --out=results

# Compiled Nessie against hand-written C + OpenMP (experiments/cbench/run.sh):
# results/cbench/. BENCH_N elements (default 10^7), BENCH_RUNS runs (default 5).
BENCH_N ?= 10000000
BENCH_RUNS ?= 5
bench:
	$(MAKE) all
	bash experiments/cbench/run.sh $(BENCH_N) $(BENCH_RUNS)

# A libFuzzer campaign on the NESL lexer, parser and type checker (not part of `make test`):
# FUZZ_TIME seconds; new inputs land in build/fuzz/corpus, crashes in build/fuzz/.
FUZZ_TIME ?= 60
fuzz:
	@mkdir -p build/fuzz/corpus
	bash compiler/nesl/embed.sh build/fuzz/nesl_basis.c $(NESL_BASIS)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	  $(addprefix -I,$(INCDIRS)) tests/fuzz/nesl_fuzz.c $(wildcard compiler/nesl/*.c) \
	  $(wildcard compiler/common/*.c) build/fuzz/nesl_basis.c -lm -lpthread -o build/fuzz/nesl_fuzz
	@echo "fuzzing for $(FUZZ_TIME)s; diagnostics and the fuzzer's log go to build/fuzz/fuzz.log"
	@cd build/fuzz && ./nesl_fuzz -max_total_time=$(FUZZ_TIME) -max_len=4096 -timeout=10 \
	  -rss_limit_mb=4096 corpus ../../tests/fuzz/corpus >fuzz.log 2>&1; st=$$?; \
	  grep -E '^#[0-9]+.*(DONE|pulse)|^Done|ERROR|SUMMARY|Test unit' fuzz.log | tail -n 6; exit $$st

# The same for λcu: parser, checker, and the fusion pipeline with four schedulers,
# each fused program checked and run against the unfused one (tests/fuzz/lcu_fuzz.c).
fuzz-lcu:
	@mkdir -p build/fuzz/lcu-corpus
	bash compiler/nesl/embed.sh build/fuzz/nesl_basis.c $(NESL_BASIS)
	clang $(CSTD) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fopenmp \
	  $(addprefix -I,$(INCDIRS)) $(PKG_CFLAGS) tests/fuzz/lcu_fuzz.c $(LIBSRC) compiler/driver/fuse.c \
	  build/fuzz/nesl_basis.c $(LIBS) -lpthread -o build/fuzz/lcu_fuzz
	@echo "fuzzing for $(FUZZ_TIME)s; diagnostics and the fuzzer's log go to build/fuzz/lcu-fuzz.log"
	@cd build/fuzz && ./lcu_fuzz -max_total_time=$(FUZZ_TIME) -max_len=8192 -timeout=20 \
	  -rss_limit_mb=4096 lcu-corpus ../../tests/lcu ../../tests/fusion >lcu-fuzz.log 2>&1; st=$$?; \
	  grep -E '^#[0-9]+.*(DONE|pulse)|^Done|ERROR|SUMMARY|Test unit|lcu_fuzz:' lcu-fuzz.log | tail -n 8; exit $$st

format:
	clang-format -i $$(find compiler fusion runtime generators experiments tests/unit -name '*.[ch]')

clean:
	rm -rf build bin

-include $(shell find build -name '*.d' 2>/dev/null)
