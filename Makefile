# npusim - cycle-accurate NPU architecture simulator.
#
#   make            build $(BUILD)/npusim
#   make run        run the bundled default job
#   make test       unit tests, golden tests, doc staleness checks
#   make asan       the same suite under AddressSanitizer + UBSan
#   make debug      -DNPU_DEBUG build (heap-order, operand-role, bound checks)
#   make bench      performance suite of the simulator itself (bench/)
#   make fuzz       libFuzzer targets, FUZZ_SECONDS each (clang)
#   make golden-update   rewrite committed goldens (only on purpose)
#   make abi       the kernels' ABI includes from asm/kernels/abi.def
#   make models     the bundled ONNX workloads, $(BUILD)/workloads/*.onnx
#   make test-models     the small test models, $(BUILD)/tests/models/
#   make models-report   docs/models_resnet50.md (npusim against the analytic model)
#   make install    PREFIX=/usr/local DESTDIR=
#
# BUILD selects the output folder, so several builds can coexist
# (build/, build/asan, build/debug).

BUILD   ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
OPT     ?= -O2 -g
# The modules every simulated cycle runs through (event loop, NoC, DRAM,
# SRAM, DMA, matrix engine, vector unit and its values, chip) build with
# OPT_HOT: -O3's unrolling of their small fixed loops takes 10 % off a
# DMA-bound run (docs/performance.md), 1.7 % off softmax with values.  An
# OPT given on the command line (make debug, asan, fuzz) applies to them
# too.
OPT_HOT ?= -O3 -g
SAN     ?=
DEFS    ?=
FUZZ_SECONDS ?= 60
# The system Python (Debian's NumPy, pytest, onnx); a pyenv python3 on PATH
# may lack them.
PYTHON  ?= /usr/bin/python3
V       ?= 0
# Quiet build lines ("CC util/diag.c"); V=1 prints the full commands.
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-6s %s\n'
endif

PKGS    := libconfig zlib json-c libprotobuf-c
WARN    := -Wall -Wextra -Werror -Wshadow -Wundef -Wstrict-prototypes \
           -Wmissing-prototypes -Wwrite-strings -Wno-missing-field-initializers
CFLAGS  ?=
# -fPIC: the same objects make libnpusim.a and libnpusim.so.
CFLAGS  += -std=c11 -D_POSIX_C_SOURCE=200809L -fPIC $(DEFS) $(OPT) $(WARN) $(SAN) -MMD -MP \
           -I$(BUILD)/gen $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)

# ---- sources, one explicit list per directory ------------------------------
UTIL_SRCS  := util/diag.c util/dtype.c util/fsout.c util/strutil.c util/num.c \
              util/npy.c
ARCH_SRCS  := arch/arch.c arch/arch_peaks.c arch/arch_dump.c arch/arch_asm.c \
              arch/cfg_audit.c arch/dram_map.c
ISA_SRCS   := isa/isa.c
PROG_SRCS  := prog/prog.c
ASM_SRCS   := asm/asm.c asm/asm_src.c asm/asm_lex.c asm/asm_err.c asm/asm_li.c asm/asm_doc.c asm/obj.c \
              asm/kabi.c
ENGINE_SRCS := sim/engine/engine.c sim/engine/calendar.c sim/engine/counters.c
NOC_SRCS   := sim/noc/noc.c sim/noc/router.c sim/noc/alloc.c sim/noc/noc_bench.c \
              sim/noc/nocport.c
MEM_SRCS   := sim/mem/port.c sim/mem/sram.c sim/mem/dram.c sim/mem/dram_bench.c
CORE_SRCS  := sim/core/matrix.c sim/core/matrix_seq.c sim/core/matrix_ff.c \
              sim/core/matrix_check.c sim/core/matrix_num.c sim/core/matrix_val.c \
              sim/core/matrix_pe.c sim/core/vecmath.c \
              sim/core/vector.c sim/core/dma.c sim/core/control.c \
              sim/core/control_region.c sim/core/control_report.c \
              sim/core/hazard.c
SIM_SRCS   := $(ENGINE_SRCS) $(MEM_SRCS) $(NOC_SRCS) $(CORE_SRCS) sim/chip.c
RUN_SRCS   := run/run.c
DSE_SRCS   := dse/expr.c dse/spec.c dse/sweep.c dse/tune.c
TRC_SRCS   := trace/trace.c
# What users read: counters files, the roofline, energy, plots (above run/).
REPORT_SRCS := report/ctrout.c report/ctrread.c report/roofline.c report/energy.c report/plot.c \
               report/summary.c report/progress.c report/ceiling.c
# The model compiler: layer graph, importers, passes, mapping, the model
# runner (docs/models.md).
COMPILER_SRCS := compiler/graph.c compiler/onnx.c compiler/infer.c compiler/fold.c \
                 compiler/passes.c compiler/topo.c compiler/map.c compiler/model.c \
                 compiler/pipeline.c compiler/explain.c compiler/compile.c \
                 compiler/lower.c
# Doc writers that join several tables (the ISA and the assembler's
# directives); mkdoc and the staleness tests call them.
DOC_SRCS   := docs/isa_doc.c
# The public C API (include/npusim.h, docs/api.md).
API_SRCS   := api/npusim.c api/model.c
# The command line: main.c dispatches to the cmd_*.c, which parse with
# their option tables (cmds.c, from commands.def and opts_*.def) and the
# parser (opts.c).  Objects call one way: main -> cmd_* -> cmds -> opts.
CLI_TAB_SRCS := cli/cmds.c cli/opts.c
CLI_SRCS   := cli/main.c cli/cmd_config.c cli/cmd_dram.c cli/cmd_noc.c cli/cmd_as.c \
              cli/cmd_objdump.c cli/cmd_run.c cli/cmd_roofline.c cli/cmd_sweep.c cli/cmd_tune.c \
              cli/cmd_model.c $(CLI_TAB_SRCS)

# The ONNX schema is not committed: Debian's python3-onnx ships onnx.proto
# and protoc-c compiles it into $(BUILD)/gen/onnx.pb-c.[ch] (the importer's
# and test_onnx's only view of the format).  The Debian path first (no
# Python start-up on every make), then wherever the system onnx lives.
ONNX_PROTO ?= $(or $(wildcard /usr/lib/python3/dist-packages/onnx/onnx.proto),$(wildcard \
              $(shell /usr/bin/python3 -c 'import onnx, os; print(os.path.dirname(onnx.__file__))' 2>/dev/null)/onnx.proto))
ONNX_PROTO := $(ONNX_PROTO)
ONNX_PB    := $(BUILD)/gen/onnx.pb-c

LIB_SRCS   := $(UTIL_SRCS) $(ARCH_SRCS) $(ISA_SRCS) $(PROG_SRCS) $(ASM_SRCS) $(SIM_SRCS) \
              $(RUN_SRCS) $(TRC_SRCS) $(REPORT_SRCS) $(DSE_SRCS) $(COMPILER_SRCS) $(DOC_SRCS) $(API_SRCS)
LIB_OBJS   := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(ONNX_PB).o
HOT_OBJS   := $(addprefix $(BUILD)/,sim/engine/engine.o sim/noc/noc.o \
              sim/engine/calendar.o sim/noc/router.o sim/noc/alloc.o \
              sim/noc/nocport.o sim/mem/dram.o sim/mem/sram.o sim/core/dma.o \
              sim/core/matrix.o sim/core/matrix_seq.o sim/core/matrix_ff.o \
              sim/core/matrix_check.o sim/core/matrix_num.o sim/core/matrix_val.o \
              sim/core/vector.o sim/core/vecmath.o sim/chip.o)
$(HOT_OBJS): OPT = $(OPT_HOT)
CLI_OBJS   := $(CLI_SRCS:%.c=$(BUILD)/%.o)
CLI_TAB_OBJS := $(CLI_TAB_SRCS:%.c=$(BUILD)/%.o)
LIB        := $(BUILD)/libnpusim.a
BIN        := $(BUILD)/npusim
# The shared library: soname libnpusim.so.$(SOMAJOR), only npusim_* exported.
SOMAJOR    := 0
SOVERSION  := 0.1.0
SOLIB      := $(BUILD)/libnpusim.so.$(SOVERSION)

# Check unit tests: tests/unit/test_<name>.c -> $(BUILD)/tests/test_<name>
UNIT_TESTS := engine diag num vecmath vector npy traces sram arch dram fsout progress \
              matrix isa asm obj dma control hazard run roofline noc regions dse graph onnx model api \
              cli
UNIT_BINS  := $(UNIT_TESTS:%=$(BUILD)/tests/test_%)

# Benchmarks of the simulator itself: bench/<name>.c -> $(BUILD)/bench/<name>
BENCH_SRCS := bench/bench_matrix.c bench/bench_engine.c bench/bench_noc.c bench/measure.c
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)

# Generated documentation, checked for staleness by `make test`.
MKDOC      := $(BUILD)/mkdoc
GEN_DOCS   := counters config isa cli energy lowering
# The kernels' ABI includes (asm/kernels/lib/*_abi.inc), generated from
# asm/kernels/abi.def by `make abi`; test_asm checks they are up to date.
MKABI      := $(BUILD)/mkabi

DEPS := $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(UNIT_BINS:=.d) $(MKDOC).d $(MKABI).d $(BENCH_BINS:=.d)

# ---- rules ------------------------------------------------------------------
.PHONY: all deps run test unit docs docs-check abi asan debug bench bench-compare test-slurm kernels-report readme fuzz fuzz-objs \
        golden-update install clean models test-models models-report
all: $(BIN) $(SOLIB)

deps:
	@sh scripts/deps.sh

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

# A pattern rule, so one protoc-c run makes both files even under -j.
$(BUILD)/gen/%.pb-c.c $(BUILD)/gen/%.pb-c.h: $(ONNX_PROTO)
	@if [ -z "$(ONNX_PROTO)" ]; then \
	  echo "npusim: onnx.proto not found (python3-onnx is missing: make deps, or ONNX_PROTO=/path/to/onnx.proto)" >&2; exit 1; fi
	@command -v protoc-c >/dev/null 2>&1 || { \
	  echo "npusim: protoc-c not found (protobuf-c-compiler is missing: make deps)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(say) PROTOC $(ONNX_PROTO)
	$(Q)protoc-c --proto_path=$(dir $(ONNX_PROTO)) --c_out=$(BUILD)/gen $(notdir $(ONNX_PROTO))

# Generated code is not ours to fix: it compiles cleanly with protoc-c 1.4
# under gcc and clang today, and another protoc-c's warnings are shown but
# must not stop the build (-Wno-error).
$(ONNX_PB).o: $(ONNX_PB).c
	$(say) CC $<
	$(Q)$(CC) $(CFLAGS) -Wno-error -c -o $@ $<

# Before the first build there is no .d to say that these include the
# generated header.
$(BUILD)/compiler/onnx.o $(BUILD)/tests/test_onnx: $(ONNX_PB).h

$(LIB): $(LIB_OBJS)
	@rm -f $@
	$(say) AR $@
	$(Q)ar rcs $@ $^

$(SOLIB): $(LIB_OBJS) api/npusim.map
	$(say) LINK $@
	$(Q)$(CC) $(CFLAGS) -shared -Wl,-soname,libnpusim.so.$(SOMAJOR) \
	  -Wl,--version-script=api/npusim.map -o $@ $(LIB_OBJS) $(LDLIBS)
	$(Q)ln -sf libnpusim.so.$(SOVERSION) $(BUILD)/libnpusim.so.$(SOMAJOR)
	$(Q)ln -sf libnpusim.so.$(SOMAJOR) $(BUILD)/libnpusim.so

$(BIN): $(CLI_OBJS) $(LIB)
	$(say) LINK $@
	$(Q)$(CC) $(CFLAGS) -o $@ $(CLI_OBJS) $(LIB) $(LDLIBS)

$(BUILD)/tests/test_%: tests/unit/test_%.c tests/unit/testutil.h tests/unit/runenv.h $(LIB)
	@mkdir -p $(dir $@)
	$(say) TEST $@
	$(Q)$(CC) $(CFLAGS) $(TEST_DEFS) $(CHECK_CFLAGS) -o $@ $< $(LIB) $(CHECK_LIBS) $(LDLIBS)

# test_onnx also reads a model that python3-onnx's helper API wrote (and
# fuzz-onnx starts from it).
ONNX_FIXTURE := $(BUILD)/tests/onnx/fixture.onnx
$(ONNX_FIXTURE): tests/unit/onnx_fixture.py
	@mkdir -p $(dir $@)
	$(say) GEN $@
	$(Q)/usr/bin/python3 $< $@
$(BUILD)/tests/test_onnx: $(ONNX_FIXTURE)
$(BUILD)/tests/test_onnx: TEST_DEFS = -DONNX_FIXTURE='"$(ONNX_FIXTURE)"'

# Host tools used by `make run` and the golden tests (independent references).
TOOLS      := $(BUILD)/gemmref $(BUILD)/convref $(BUILD)/lnref $(BUILD)/attnref $(BUILD)/gatherref $(BUILD)/bnref $(BUILD)/permref $(BUILD)/quantref $(BUILD)/eltref $(BUILD)/trccheck $(BUILD)/pngstat
$(BUILD)/%: tests/tools/%.c tests/tools/fpref.h $(LIB)
	$(say) TOOL $@
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(say) BENCH $@
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# mkdoc cli reads the command tables, which sit above the library.
$(MKDOC): docs/mkdoc.c $(CLI_TAB_OBJS) $(LIB)
	$(say) TOOL $@
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(CLI_TAB_OBJS) $(LIB) $(LDLIBS)

docs: $(MKDOC)
	@for d in $(GEN_DOCS); do $(MKDOC) $$d > docs/$$d.md.tmp && mv docs/$$d.md.tmp docs/$$d.md; done

docs-check: $(MKDOC)
	@sh scripts/docs_check.sh $(MKDOC) $(GEN_DOCS)

$(MKABI): asm/mkabi.c $(LIB)
	$(say) TOOL $@
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

abi: $(MKABI)
	@$(MKABI) asm/kernels/lib

run: deps
	@$(MAKE) --no-print-directory $(BIN) $(TOOLS)
	@sh scripts/run_default.sh $(BUILD)

unit: $(UNIT_BINS) $(BIN) $(TOOLS) $(SOLIB)

test: deps
	@$(MAKE) --no-print-directory unit $(MKDOC)
	@sh scripts/run_tests.sh $(BUILD) "$(UNIT_TESTS)" "$(GEN_DOCS)"

# Third-party leaks (libconfig's strbuf_append after a syntax error) are
# suppressed by name in scripts/lsan.supp; ours never are.
LSAN_SUPP := scripts/lsan.supp
asan:
	@NPU_NEED_CLANG=1 sh scripts/deps.sh
	@$(MAKE) --no-print-directory BUILD=build/asan CC=clang \
	  OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" \
	  unit build/asan/mkdoc
	@NPU_PYTEST=0 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 CK_FORK=no \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/$(LSAN_SUPP):print_suppressions=0 \
	  sh scripts/run_tests.sh build/asan "$(UNIT_TESTS)" "$(GEN_DOCS)"

debug: deps
	@$(MAKE) --no-print-directory BUILD=build/debug OPT="-O0 -g" \
	  DEFS="-DNPU_DEBUG" unit build/debug/mkdoc
	@sh scripts/run_tests.sh build/debug "$(UNIT_TESTS)" "$(GEN_DOCS)"

# libFuzzer: the input-parsing modules (util, arch, isa, asm) rebuilt with
# coverage and ASan/UBSan; one target per input format (assembly, objects,
# configs with -s overrides, .npy), each run for FUZZ_SECONDS from its
# seeds (new finds go to build/fuzz/corpus_*, crashes to
# build/fuzz/crash-*; keep crashing inputs in fuzz/regress/, which the
# unit tests replay).  `make fuzz-cfg` runs one target.
FUZZ_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_TARGETS := asm obj cfg npy ctr spec
FUZZ_SEEDS_asm := fuzz/corpus/asm tests/asm $(wildcard asm/kernels)
FUZZ_SEEDS_obj := fuzz/corpus/obj
FUZZ_SEEDS_cfg := fuzz/corpus/cfg configs tests/configs
FUZZ_SEEDS_npy := fuzz/corpus/npy
FUZZ_OBJS  := $(patsubst %.c,build/fuzz/%.o,util/diag.c util/dtype.c \
              util/fsout.c util/strutil.c util/num.c util/npy.c \
              $(ARCH_SRCS) $(ISA_SRCS) $(PROG_SRCS) $(ASM_SRCS))
# counters read back and plotted (fuzz_ctr)
FUZZ_OBJS  += $(patsubst %.c,build/fuzz/%.o,report/ctrread.c report/roofline.c)
FUZZ_SEEDS_ctr := fuzz/corpus/ctr fuzz/regress/ctr
# sweep specs and constraint expressions (fuzz_spec)
FUZZ_OBJS  += $(patsubst %.c,build/fuzz/%.o,dse/spec.c dse/expr.c)
FUZZ_SEEDS_spec := fuzz/corpus/spec workloads/sweeps
# ONNX models (fuzz_onnx): the importer over protobuf-c and the schema
# generated into build/fuzz/gen; seeded with test_onnx's python3-onnx model.
FUZZ_TARGETS += onnx
FUZZ_OBJS  += $(patsubst %.c,build/fuzz/%.o,compiler/graph.c compiler/onnx.c) \
              build/fuzz/gen/onnx.pb-c.o
FUZZ_SEEDS_onnx := $(dir $(ONNX_FIXTURE))
# SCALE-Sim topology CSVs (fuzz_topo): the importer and shape inference
FUZZ_TARGETS += topo
FUZZ_OBJS  += $(patsubst %.c,build/fuzz/%.o,compiler/topo.c compiler/infer.c \
              compiler/fold.c)
FUZZ_SEEDS_topo := workloads/topologies
fuzz-onnx: $(ONNX_FIXTURE)
define FUZZ_RUN
	clang -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) \
	  $(shell pkg-config --cflags $(PKGS) 2>/dev/null) -o build/fuzz/fuzz_$(1) \
	  fuzz/fuzz_$(1).c $(FUZZ_OBJS) $(LDLIBS)
	@mkdir -p build/fuzz/corpus_$(1)
	LSAN_OPTIONS=suppressions=$(CURDIR)/$(LSAN_SUPP):print_suppressions=0 \
	build/fuzz/fuzz_$(1) -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 \
	  $(patsubst %,-dict=%,$(wildcard fuzz/$(1).dict)) \
	  -artifact_prefix=build/fuzz/crash-$(1)- build/fuzz/corpus_$(1) \
	  $(FUZZ_SEEDS_$(1))
endef
fuzz: $(FUZZ_TARGETS:%=fuzz-%)
fuzz-objs:
	@NPU_NEED_CLANG=1 sh scripts/deps.sh
	@$(MAKE) --no-print-directory BUILD=build/fuzz CC=clang OPT="-O1 -g" \
	  SAN="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" $(FUZZ_OBJS)
fuzz-%: fuzz-objs
	$(call FUZZ_RUN,$*)

bench: deps $(BIN) $(SOLIB) $(BENCH_BINS) $(TOOLS) $(BUILD)/workloads/resnet50.onnx \
       $(BUILD)/workloads/bert_layer.onnx
	@sh bench/run.sh $(BIN)

# README.md's measured tables (scripts/readme_tables.sh); make test checks them.
readme: deps $(BIN) $(TOOLS)
	@sh scripts/readme_tables.sh $(BIN)

# docs/kernels.md: the kernel library measured (scripts/kernels/*.cases).
kernels-report: deps $(BIN) $(TOOLS)
	@sh scripts/kernels_report.sh $(BIN)

# A sweep submitted as a job array to a real one-node Slurm that the test
# starts and stops itself (root; installs slurm-wlm and munge if missing).
test-slurm: deps $(BIN)
	@NPU_NEED_SLURM=1 sh scripts/deps.sh
	@sh tests/slurm/run.sh $(BUILD)

# The suite again, then its ratios against the committed baseline.
bench-compare: bench
	@sh bench/compare.sh bench/baseline.csv bench/results.csv

# The bundled workloads, generated from a fixed seed by
# workloads/models/gen.py (sizes and times in workloads/models/README.md);
# one file per model, remade only when a generator changes.
MODELS      := resnet50 mobilenetv2 bert_layer gpt2_decode llama_mlp
MODEL_GEN   := workloads/models/gen.py workloads/models/onnxbuild.py
models: $(MODELS:%=$(BUILD)/workloads/%.onnx)
$(BUILD)/workloads/%.onnx: $(MODEL_GEN)
	$(say) GEN $@
	$(Q)$(PYTHON) workloads/models/gen.py -q $(BUILD)/workloads $*

# ResNet-50's conv and GEMM layers against the analytic systolic model on
# three chips: docs/models_resnet50.md (measured, not a staleness test).
models-report: $(BIN) $(BUILD)/workloads/resnet50.onnx
	@$(PYTHON) scripts/models_report.py $(BIN) $(BUILD)/workloads/resnet50.onnx \
	  docs/models_resnet50.md configs/tpu-v1.cfg configs/default.cfg configs/datacenter.cfg

# Small models for value checks and importer errors, each with its inputs
# as <name>.<input>.npy (tests/models/gen_small.py).
SMALL_MODELS := tiny_cnn tiny_mbv2 tiny_mlp tiny_attn tiny_attn_ln17 tiny_hswish err_unsupported_op \
                err_resize_linear err_opset9 err_truncated
test-models: $(SMALL_MODELS:%=$(BUILD)/tests/models/%.onnx)
$(BUILD)/tests/models/%.onnx: tests/models/gen_small.py workloads/models/onnxbuild.py
	$(say) GEN $@
	$(Q)$(PYTHON) tests/models/gen_small.py $(BUILD)/tests/models $*

golden-update: $(BIN) $(SOLIB) $(TOOLS)
	@sh scripts/golden_update.sh $(BUILD)

# The Python package goes where the system Python looks for packages under
# PREFIX (Debian: PREFIX/lib/python3/dist-packages for /usr, .../python3.X/
# dist-packages for /usr/local); PYDIR overrides.
PYDIR ?= $(shell /usr/bin/python3 -c 'import sys, sysconfig; p = sysconfig.get_path("purelib", vars={"base": "$(PREFIX)"}); print(p.replace("site-packages", "dist-packages") if "/usr" in "$(PREFIX)" else p)' 2>/dev/null || echo $(PREFIX)/lib/python3/dist-packages)
install: $(BIN) $(SOLIB)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/npusim/configs \
	  $(DESTDIR)$(PREFIX)/share/npusim/kernels/lib $(DESTDIR)$(PREFIX)/share/doc/npusim \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PYDIR)/npusim
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/npusim
	install -m 644 configs/*.cfg $(DESTDIR)$(PREFIX)/share/npusim/configs/
	install -m 644 asm/kernels/*.s $(DESTDIR)$(PREFIX)/share/npusim/kernels/
	install -m 644 asm/kernels/lib/*.inc $(DESTDIR)$(PREFIX)/share/npusim/kernels/lib/
	install -m 644 README.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/npusim/
	install -m 755 $(SOLIB) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libnpusim.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libnpusim.so.$(SOMAJOR)
	ln -sf libnpusim.so.$(SOMAJOR) $(DESTDIR)$(PREFIX)/lib/libnpusim.so
	install -m 644 include/npusim.h $(DESTDIR)$(PREFIX)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(SOVERSION)|g' \
	  -e 's|@LIBS_PRIVATE@|$(LDLIBS)|g' api/npusim.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/npusim.pc
	install -m 644 python/npusim/*.py $(DESTDIR)$(PYDIR)/npusim/
	printf 'LIBDIR = "%s"\nSHARE = "%s"\nINCLUDEDIR = "%s"\n' '$(PREFIX)/lib' \
	  '$(PREFIX)/share/npusim' '$(PREFIX)/include' > $(DESTDIR)$(PYDIR)/npusim/_paths.py

clean:
	rm -rf build

-include $(DEPS)
