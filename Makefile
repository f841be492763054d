# sacc — the semantic-adaptation compiler.
#
#   make            build build/sacc and the test FMUs
#   make demo       the main job: the adaptations checked and built, the power window run
#                   against its monolithic reference (CSVs, plot, comparison in build/demo/)
#   make check      every test: unit, golden, robustness, then again under ASan/UBSan and valgrind
#   make install    sacc, its man page and bash completion under PREFIX (/usr/local), in DESTDIR
#
# Both `demo` and `check` first make sure the Debian packages the build needs are there
# (installing them when run as root).  Sources are picked up by wildcard: a new
# compiler/*.c, runtime/*.c, tests/unit/test_*.c, tests/fmus/<name>/ or tests/fmus/broken/*.c
# needs no edit here; so does a new orchestrator/*.c.

CC      ?= cc
BUILD   ?= build
SAN     ?=
RE2C    ?= re2c
LEMON   ?= lemon
LEMPAR  ?= /usr/share/lemon/lempar.c

PKGS    := libxml-2.0 minizip udunits
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ifeq ($(strip $(PKG_LIBS)),)
PKG_CFLAGS := -I/usr/include/libxml2 -I/usr/include/minizip
PKG_LIBS   := -lxml2 -lminizip -ludunits2
endif

ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -DARENA_DEBUG
else
SANFLAGS :=
endif

WARN    := -Wall -Wextra -Wpedantic -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS  ?= -O2 -g
COMPILER_INC := -Icompiler -Icompiler/front -Icompiler/check -Icompiler/rewrite -Icompiler/emit \
                -Icompiler/package -Icompiler/ssp -Icompiler/lsp
ALL_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L $(CFLAGS) $(SANFLAGS) $(COMPILER_INC) -Igenerated $(PKG_CFLAGS)
# Lemon and re2c output trips some warnings we keep for hand-written code.
GEN_CFLAGS := $(ALL_CFLAGS) -Wall -Werror -Wno-unused-parameter -Wno-unused-variable -Wno-unused-but-set-variable
LDLIBS  := $(PKG_LIBS) -lm

GEN_SRC := generated/sa_lexer.c generated/sa_grammar.c
GEN_HDR := generated/sa_grammar.h
# compiler/ library code never links runtime/ nor orchestrator/; only sacc does.
# compiler/ by stage (compiler/README.md): front/, check/, rewrite/, emit/, package/, the
# SSP reader ssp/, the language server lsp/, and at the top what every stage shares (util, numfmt) and main.c, which
# only dispatches.
COMPILER_STAGES := front check rewrite emit package ssp lsp
COMPILER_HDR := $(wildcard compiler/*.h $(patsubst %,compiler/%/*.h,$(COMPILER_STAGES)))
LIB_SRC := $(filter-out compiler/main.c,$(wildcard compiler/*.c $(patsubst %,compiler/%/*.c,$(COMPILER_STAGES))))
LIB_OBJ := $(patsubst compiler/%.c,$(BUILD)/obj/%.o,$(LIB_SRC)) \
           $(patsubst generated/%.c,$(BUILD)/obj/%.o,$(GEN_SRC)) \
           $(BUILD)/obj/rt/sart_numfmt.o
SACC    := $(BUILD)/sacc
FMU_HOST := $(BUILD)/sacc-fmu-host

UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

FMU_DIRS  := $(patsubst tests/fmus/%/modelDescription.xml,%,$(wildcard tests/fmus/*/modelDescription.xml))
FMUS      := $(patsubst %,$(BUILD)/fmus/%.fmu,$(FMU_DIRS))
FMU_PACK  := $(BUILD)/tools/fmu_pack

.PHONY: check-ensemble check-slurm check-wine
.PHONY: all deps demo check check-core check-isolated check-unit check-golden check-srcfmu check-asan \
        check-valgrind check-generated check-docs golden-update fuzz clean
.SUFFIXES:

all: $(SACC) $(FMUS)

# The runtime's objects that `sacc build` compiles once and reuses (compiler/package/
# compile.h): every build this Makefile runs shares one cache inside the build tree.
export SACC_CACHE_DIR ?= $(CURDIR)/build/cc-cache

# ---- dependencies -----------------------------------------------------------------------
deps:
	@sh tests/deps.sh

# What `make demo` needs and no more: no test framework, checkers or fuzzer.
.PHONY: deps-demo
deps-demo:
	@sh tests/deps.sh demo

# ---- generated front end ----------------------------------------------------------------
# The lexer and parser are committed under generated/ (see README); `make check-generated`
# proves they are what the grammar sources produce.
generated/sa_lexer.c: grammar/sa_lexer.re $(GEN_HDR)
	$(RE2C) -W -Werror --no-generation-date --no-version -o $@ $<

generated/sa_grammar.c generated/sa_grammar.h &: grammar/sa_grammar.y
	@mkdir -p $(BUILD)
	$(LEMON) -T$(LEMPAR) -d$(BUILD) -q $< || { echo "lemon: grammar has conflicts" >&2; exit 1; }
	@sed 's|$(BUILD)/sa_grammar|generated/sa_grammar|g' $(BUILD)/sa_grammar.c > generated/sa_grammar.c
	@cp $(BUILD)/sa_grammar.h generated/sa_grammar.h

# The formatter's powers of ten, written by their generator (committed like the above).
runtime/sart_numfmt_pow10.h: compiler/tools/pow10_table.c
	@mkdir -p $(BUILD)/tools
	$(CC) $(ALL_CFLAGS) $(WARN) -o $(BUILD)/tools/pow10_table $<
	$(BUILD)/tools/pow10_table > $@.tmp && mv $@.tmp $@

check-generated:
	@rm -rf $(BUILD)/regen && mkdir -p $(BUILD)/regen
	@$(CC) $(ALL_CFLAGS) $(WARN) -o $(BUILD)/regen/pow10_table compiler/tools/pow10_table.c
	@$(BUILD)/regen/pow10_table > $(BUILD)/regen/sart_numfmt_pow10.h
	@$(RE2C) -W -Werror --no-generation-date --no-version -o $(BUILD)/regen/sa_lexer.c grammar/sa_lexer.re
	@$(LEMON) -T$(LEMPAR) -d$(BUILD)/regen -q grammar/sa_grammar.y
	@sed -i 's|$(BUILD)/regen/sa_grammar|generated/sa_grammar|g' $(BUILD)/regen/sa_grammar.c
	@sed -i 's|$(BUILD)/regen/sa_lexer|generated/sa_lexer|g' $(BUILD)/regen/sa_lexer.c
	@diff -u generated/sa_lexer.c $(BUILD)/regen/sa_lexer.c && \
	 diff -u generated/sa_grammar.c $(BUILD)/regen/sa_grammar.c && \
	 diff -u generated/sa_grammar.h $(BUILD)/regen/sa_grammar.h && \
	 diff -u runtime/sart_numfmt_pow10.h $(BUILD)/regen/sart_numfmt_pow10.h && \
	 echo "generated/ and runtime/sart_numfmt_pow10.h are up to date"

# ---- the compiler -----------------------------------------------------------------------
$(BUILD)/obj/%.o: compiler/%.c $(COMPILER_HDR) $(GEN_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -c -o $@ $<

$(BUILD)/obj/sa_%.o: generated/sa_%.c $(COMPILER_HDR) $(GEN_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(GEN_CFLAGS) -c -o $@ $<

# The one runtime file sacc compiles too: the shortest-number formatter (compiler/numfmt.c
# calls it), self-contained C99 that both result files and the wrappers' messages use.
$(BUILD)/obj/rt/sart_numfmt.o: runtime/sart_numfmt.c runtime/sart_numfmt.h runtime/sart_numfmt_pow10.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -c -o $@ $<
$(BUILD)/obj/numfmt.o: runtime/sart_numfmt.h

$(BUILD)/libsacc.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# sacc = main.o + liborchestrator.a (`sacc simulate`, `sacc plot`; see below) + libsacc.a +
# libsart.a (the seam to the inner FMUs, for `sacc simulate`; -ldl for its dlopen of the FMUs).
# main.c dispatches to the orchestrator's commands: of compiler/ it alone sees their headers.
$(BUILD)/obj/main.o: ALL_CFLAGS += -Iorchestrator
$(BUILD)/obj/main.o: $(wildcard orchestrator/*.h)

$(SACC): $(BUILD)/obj/main.o $(BUILD)/liborchestrator.a $(BUILD)/libsacc.a $(BUILD)/libsart.a \
         | $(FMU_HOST)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS) -ldl

# ---- test FMUs --------------------------------------------------------------------------
# Each tests/fmus/<name>/ holds model.c and modelDescription.xml; the shared kit in
# tests/fmus/kit/ supplies the FMI 2.0 boilerplate.  fmu_pack zips them with minizip.
FMU_CFLAGS := -std=c99 -O2 -fPIC -shared -fvisibility=hidden -Wall -Wextra -Wpedantic -Werror \
              -Itests/fmus/kit -Iruntime/fmi2

$(FMU_PACK): tests/fmus/tools/fmu_pack.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -o $@ $< $(LDLIBS) -lz

KIT_FILES := $(wildcard tests/fmus/kit/*.[ch] runtime/fmi2/*.h)

# An FMU that needs more libraries names them in tests/fmus/<name>/ldlibs (one line, read
# when its recipe runs; e.g. the two masses link GSL).  Headers shared between FMUs live in
# a directory without modelDescription.xml and are listed as extra prerequisites below.
$(BUILD)/fmus/%.fmu: tests/fmus/%/modelDescription.xml tests/fmus/%/model.c $(KIT_FILES) $(FMU_PACK)
	@mkdir -p $(BUILD)/fmus/$*/binaries/linux64
	$(CC) $(FMU_CFLAGS) -Itests/fmus/$* -o $(BUILD)/fmus/$*/binaries/linux64/$*.so \
	    tests/fmus/$*/model.c tests/fmus/kit/fmu_kit.c \
	    $(shell cat tests/fmus/$*/ldlibs 2>/dev/null) -lm
	cp tests/fmus/$*/modelDescription.xml $(BUILD)/fmus/$*/modelDescription.xml
	$(FMU_PACK) $@ $(BUILD)/fmus/$*

$(BUILD)/fmus/mass1.fmu: tests/fmus/mass1/ldlibs tests/fmus/twomass/twomass_model.h
$(BUILD)/fmus/mass2.fmu: tests/fmus/mass2/ldlibs tests/fmus/twomass/twomass_model.h
$(BUILD)/fmus/once.fmu: tests/fmus/census/model.c

# ---- the fault-injection FMU (tests/fmus/faulty/) -----------------------------------------
# Its model.c includes the kit's C itself, with the kit's fmi2SetFMUstate renamed, so that
# it can wrap it (the fault ignore_set_state): this rule compiles it alone, without
# fmu_kit.c, and takes precedence over the pattern rule above.
$(BUILD)/fmus/faulty.fmu: tests/fmus/faulty/modelDescription.xml tests/fmus/faulty/model.c \
                          $(KIT_FILES) $(FMU_PACK)
	@mkdir -p $(BUILD)/fmus/faulty/binaries/linux64
	$(CC) $(FMU_CFLAGS) -o $(BUILD)/fmus/faulty/binaries/linux64/faulty.so \
	    tests/fmus/faulty/model.c -lm
	cp tests/fmus/faulty/modelDescription.xml $(BUILD)/fmus/faulty/modelDescription.xml
	$(FMU_PACK) $@ $(BUILD)/fmus/faulty

# ---- FMI 3.0 test FMUs (tests/fmus3/) ------------------------------------------------------
# Each tests/fmus3/<name>/ holds model.c and modelDescription.xml; the kit in tests/fmus3/kit/
# supplies the FMI 3.0 Co-Simulation layer.  Binaries go under x86_64-linux, FMI 3.0's
# platform directory.
FMU3_DIRS   := $(patsubst tests/fmus3/%/modelDescription.xml,%,$(wildcard tests/fmus3/*/modelDescription.xml))
FMUS3       := $(patsubst %,$(BUILD)/fmus3/%.fmu,$(FMU3_DIRS))
FMU3_CFLAGS := -std=c99 -O2 -fPIC -shared -fvisibility=hidden -Wall -Wextra -Wpedantic -Werror \
               -Itests/fmus3/kit -Iruntime/fmi3
KIT3_FILES  := $(wildcard tests/fmus3/kit/*.[ch] runtime/fmi3/*.h)

$(BUILD)/fmus3/%.fmu: tests/fmus3/%/modelDescription.xml tests/fmus3/%/model.c $(KIT3_FILES) $(FMU_PACK)
	@mkdir -p $(BUILD)/fmus3/$*/binaries/x86_64-linux
	$(CC) $(FMU3_CFLAGS) -o $(BUILD)/fmus3/$*/binaries/x86_64-linux/$*.so \
	    tests/fmus3/$*/model.c tests/fmus3/kit/fmu3_kit.c -lm
	cp tests/fmus3/$*/modelDescription.xml $(BUILD)/fmus3/$*/modelDescription.xml
	$(FMU_PACK) $@ $(BUILD)/fmus3/$*

all: $(FMUS3)

# The FMI 3.0 kit's own test reads the FMUs through the suite's FMI 3.0 importer.
$(BUILD)/tests/test_fmu3_kit: $(KIT3_FILES) | $(FMUS3)

# ---- Model Exchange test FMUs (tests/fmus_me/) ---------------------------------------------
# Each tests/fmus_me/<name>/ holds model.c and one model description per FMI version
# (fmi2.xml, fmi3.xml); the core in tests/fmus_me/kit/ under its two skins makes both FMUs
# from the one model: $(BUILD)/fmus_me/fmi2/<name>.fmu and $(BUILD)/fmus_me/fmi3/<name>.fmu,
# unpacked beside them.  Built for the tests (UNIT_NEEDS), not by `make all`.
FMU_ME_DIRS   := $(patsubst tests/fmus_me/%/model.c,%,$(wildcard tests/fmus_me/*/model.c))
FMUS_ME2      := $(patsubst %,$(BUILD)/fmus_me/fmi2/%.fmu,$(FMU_ME_DIRS))
FMUS_ME3      := $(patsubst %,$(BUILD)/fmus_me/fmi3/%.fmu,$(FMU_ME_DIRS))
FMUS_ME       := $(FMUS_ME2) $(FMUS_ME3)
FMU_ME_CFLAGS := -std=c99 -O2 -fPIC -shared -fvisibility=hidden -Wall -Wextra -Wpedantic -Werror \
                 -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Itests/fmus_me/kit
KIT_ME_FILES  := tests/fmus_me/kit/me_core.c tests/fmus_me/kit/me_core.h

$(BUILD)/fmus_me/fmi2/%.fmu: tests/fmus_me/%/fmi2.xml tests/fmus_me/%/model.c $(KIT_ME_FILES) \
                             tests/fmus_me/kit/me_fmi2.c $(wildcard runtime/fmi2/*.h) $(FMU_PACK)
	@mkdir -p $(BUILD)/fmus_me/fmi2/$*/binaries/linux64
	$(CC) $(FMU_ME_CFLAGS) -Iruntime/fmi2 -o $(BUILD)/fmus_me/fmi2/$*/binaries/linux64/$*.so \
	    tests/fmus_me/$*/model.c tests/fmus_me/kit/me_core.c tests/fmus_me/kit/me_fmi2.c -lm
	cp tests/fmus_me/$*/fmi2.xml $(BUILD)/fmus_me/fmi2/$*/modelDescription.xml
	$(FMU_PACK) $@ $(BUILD)/fmus_me/fmi2/$*

$(BUILD)/fmus_me/fmi3/%.fmu: tests/fmus_me/%/fmi3.xml tests/fmus_me/%/model.c $(KIT_ME_FILES) \
                             tests/fmus_me/kit/me_fmi3.c $(wildcard runtime/fmi3/*.h) $(FMU_PACK)
	@mkdir -p $(BUILD)/fmus_me/fmi3/$*/binaries/x86_64-linux
	$(CC) $(FMU_ME_CFLAGS) -Iruntime/fmi3 -o $(BUILD)/fmus_me/fmi3/$*/binaries/x86_64-linux/$*.so \
	    tests/fmus_me/$*/model.c tests/fmus_me/kit/me_core.c tests/fmus_me/kit/me_fmi3.c -lm
	cp tests/fmus_me/$*/fmi3.xml $(BUILD)/fmus_me/fmi3/$*/modelDescription.xml
	$(FMU_PACK) $@ $(BUILD)/fmus_me/fmi3/$*

fmus-me: $(FMUS_ME)
.PHONY: fmus-me
# Its test loads the libraries itself (dlopen), like an importer: cmocka and libdl only.
$(BUILD)/tests/test_fmu_me_kit: tests/unit/test_fmu_me_kit.c $(wildcard tests/unit/*.h) \
                                $(wildcard runtime/fmi2/*.h runtime/fmi3/*.h) | $(FMUS_ME)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Itests/unit -Iruntime/fmi2 -Iruntime/fmi3 -o $@ $< \
	    -lcmocka -ldl -lm

# clocks_me is a Model Exchange FMU: its model.c is written on the Model Exchange kit
# (tests/fmus_me/kit) under its FMI 3.0 skin, so this rule takes precedence over the
# pattern rule of the Co-Simulation kit.
$(BUILD)/fmus3/clocks_me.fmu: tests/fmus3/clocks_me/modelDescription.xml \
                              tests/fmus3/clocks_me/model.c $(KIT_ME_FILES) \
                              tests/fmus_me/kit/me_fmi3.c $(wildcard runtime/fmi3/*.h) $(FMU_PACK)
	@mkdir -p $(BUILD)/fmus3/clocks_me/binaries/x86_64-linux
	$(CC) $(FMU_ME_CFLAGS) -Iruntime/fmi3 \
	    -o $(BUILD)/fmus3/clocks_me/binaries/x86_64-linux/clocks_me.so \
	    tests/fmus3/clocks_me/model.c tests/fmus_me/kit/me_core.c tests/fmus_me/kit/me_fmi3.c -lm
	cp tests/fmus3/clocks_me/modelDescription.xml $(BUILD)/fmus3/clocks_me/modelDescription.xml
	$(FMU_PACK) $@ $(BUILD)/fmus3/clocks_me

# The clocked FMUs' test drives them through the strict FMI 3.0 importer and a scheduler of
# its own, as test_fmu_me_kit does: cmocka and libdl only.
FMUS3_CLOCKS := $(filter $(BUILD)/fmus3/clocks%,$(FMUS3))
$(BUILD)/tests/test_fmu_clocks_kit: tests/unit/test_fmu_clocks_kit.c $(wildcard tests/unit/*.h) \
                                    $(KIT3_FILES) | $(FMUS3_CLOCKS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Itests/unit -Iruntime/fmi3 -o $@ $< -lcmocka -ldl -lm
# interm3's, the same way.
$(BUILD)/tests/test_fmu_interm3: tests/unit/test_fmu_interm3.c $(wildcard tests/unit/*.h) \
                                 $(KIT3_FILES) | $(BUILD)/fmus3/interm3.fmu
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Itests/unit -Iruntime/fmi3 -o $@ $< -lcmocka -ldl -lm

# fmi3_md_check: the suite's checker of FMI 3.0 model descriptions (rules beyond the schema).
FMI3_MD_CHECK := $(BUILD)/tools/fmi3_md_check
$(FMI3_MD_CHECK): tests/fmus3/tools/fmi3_md_check.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -o $@ $< $(LDLIBS)
$(BUILD)/tests/test_fmi3_md_check: | $(FMI3_MD_CHECK)
$(BUILD)/tests/test_fmu_me_kit: | $(FMI3_MD_CHECK)

# ---- the polynomial FMU (tests/fmus/poly/) -----------------------------------------------
# Like faulty: its model.c includes the kit's C with the input- and output-derivative
# functions renamed (it takes second input derivatives and gives output derivatives), so
# this rule compiles it alone and takes precedence over the pattern rule.
$(BUILD)/fmus/poly.fmu: tests/fmus/poly/modelDescription.xml tests/fmus/poly/model.c \
                        $(KIT_FILES) $(FMU_PACK)
	@mkdir -p $(BUILD)/fmus/poly/binaries/linux64
	$(CC) $(FMU_CFLAGS) -o $(BUILD)/fmus/poly/binaries/linux64/poly.so \
	    tests/fmus/poly/model.c -lm
	cp tests/fmus/poly/modelDescription.xml $(BUILD)/fmus/poly/modelDescription.xml
	$(FMU_PACK) $@ $(BUILD)/fmus/poly

# ---- runtime ----------------------------------------------------------------------------
# What every generated FMU links (runtime/, prefix sart_): C99, position-independent, hidden
# symbols, libc + libm + libdl only.  Sources are picked up by wildcard.  Unit tests named
# tests/unit/test_sart_*.c link $(BUILD)/libsart.a.
RUNTIME_SRC := $(wildcard runtime/*.c)
RUNTIME_HDR := $(wildcard runtime/*.h runtime/fmi2/*.h runtime/fmi3/*.h)
RUNTIME_OBJ := $(patsubst runtime/%.c,$(BUILD)/runtime/%.o,$(RUNTIME_SRC))
RT_CFLAGS   := -std=c99 $(CFLAGS) $(SANFLAGS) -fPIC -fvisibility=hidden -Iruntime

$(BUILD)/runtime/%.o: runtime/%.c $(RUNTIME_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) $(WARN) -c -o $@ $<

$(BUILD)/libsart.a: $(RUNTIME_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The host program of inner FMUs run out of process (runtime/sart_isolate.h), beside sacc:
# its main is the one file of runtime/host/, outside what a wrapper links.
$(FMU_HOST): runtime/host/sacc_fmu_host.c $(BUILD)/libsart.a $(RUNTIME_HDR)
	$(CC) $(RT_CFLAGS) $(WARN) -o $@ $< $(BUILD)/libsart.a -ldl -lm

# The same host program for Windows, sacc-fmu-host.exe beside sacc: `sacc simulate` runs an
# FMU that ships Windows binaries only in it, under Wine (runtime/sart_isolate.h).  Built
# with mingw-w64 when it is installed, from the runtime files, linked statically like a
# win64 wrapper's library so that it needs only what every Windows has.  `sacc build` ships
# it in win64 wrappers with isolated inners too.
MINGW_CC := x86_64-w64-mingw32-gcc
WIN_HOST := $(BUILD)/sacc-fmu-host.exe
WIN_RT_SRC := $(RUNTIME_SRC)
WIN_RT_OBJ := $(patsubst runtime/%.c,$(BUILD)/win64/runtime/%.o,$(WIN_RT_SRC))
WIN_CFLAGS := -std=c99 -O2 -D__USE_MINGW_ANSI_STDIO=1 -Iruntime $(WARN)
ifneq ($(shell command -v $(MINGW_CC) 2>/dev/null),)
WIN_HOST_BUILT := $(WIN_HOST)
all: $(WIN_HOST)
endif

$(BUILD)/win64/runtime/%.o: runtime/%.c $(RUNTIME_HDR)
	@mkdir -p $(dir $@)
	$(MINGW_CC) $(WIN_CFLAGS) -c -o $@ $<

$(BUILD)/win64/libsart.a: $(WIN_RT_OBJ)
	@rm -f $@
	x86_64-w64-mingw32-ar rcs $@ $^

$(WIN_HOST): runtime/host/sacc_fmu_host.c $(BUILD)/win64/libsart.a $(RUNTIME_HDR)
	$(MINGW_CC) $(WIN_CFLAGS) -o $@ $< $(BUILD)/win64/libsart.a -static -lpthread \
		-Wl,--no-insert-timestamp

# ---- the orchestrator (orchestrator/: `sacc simulate`, `sacc plot`) ----------------------
# The master algorithms (orchestrator/sart_*.c) are built as the runtime is (C99, over the
# seam's header runtime/sart_inner.h); the simulate-only code (the command, result tables,
# sweeps, progress, number formatting, plots) as the compiler is, seeing compiler/ headers.
# One archive, liborchestrator.a, linked by sacc and by the tests and benchmarks that drive
# the master; neither libsacc.a nor libsart.a holds any of it, and wrappers never carry it.
ORCH_SRC := $(wildcard orchestrator/*.c)
ORCH_HDR := $(wildcard orchestrator/*.h)
ORCH_OBJ := $(patsubst orchestrator/%.c,$(BUILD)/orchestrator/%.o,$(ORCH_SRC))
ORCH_LIB := $(BUILD)/liborchestrator.a

$(BUILD)/orchestrator/sart_%.o: orchestrator/sart_%.c $(ORCH_HDR) $(RUNTIME_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) $(WARN) -c -o $@ $<

$(BUILD)/orchestrator/%.o: orchestrator/%.c $(ORCH_HDR) $(RUNTIME_HDR) $(COMPILER_HDR) \
                           $(GEN_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Iruntime -c -o $@ $<

$(ORCH_LIB): $(ORCH_OBJ)
	@rm -f $@
	ar rcs $@ $^

# Deliberately broken FMUs for the runtime's error paths and the importers' refusals:
# tests/fmus/broken/<name>.c is a whole library by itself (no model description; one that
# lacks only an export includes a test FMU's model.c and the kit's C), built into
# $(BUILD)/fmus-broken/<name>/binaries/linux64/<name>.so; tests/fmus3/broken/<name>.c the
# same for FMI 3.0, into $(BUILD)/fmus3-broken/<name>/binaries/x86_64-linux/<name>.so.
BROKEN_NAMES := $(patsubst tests/fmus/broken/%.c,%,$(wildcard tests/fmus/broken/*.c))
BROKEN_FMUS  := $(foreach n,$(BROKEN_NAMES),$(BUILD)/fmus-broken/$(n)/binaries/linux64/$(n).so)
BROKEN3_NAMES := $(patsubst tests/fmus3/broken/%.c,%,$(wildcard tests/fmus3/broken/*.c))
BROKEN3_FMUS  := $(foreach n,$(BROKEN3_NAMES),\
                   $(BUILD)/fmus3-broken/$(n)/binaries/x86_64-linux/$(n).so)

define BROKEN_RULE
$(BUILD)/fmus-broken/$(1)/binaries/linux64/$(1).so: tests/fmus/broken/$(1).c $(KIT_FILES) \
                                                    $(wildcard tests/fmus/*/model.c)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(FMU_CFLAGS) -o $$@ $$< -lm
endef
$(foreach n,$(BROKEN_NAMES),$(eval $(call BROKEN_RULE,$(n))))
# mejump is written on the Model Exchange test FMUs' kit (tests/fmus_me/kit/), included whole.
$(BUILD)/fmus-broken/mejump/binaries/linux64/mejump.so: $(KIT_ME_FILES) tests/fmus_me/kit/me_fmi2.c

define BROKEN3_RULE
$(BUILD)/fmus3-broken/$(1)/binaries/x86_64-linux/$(1).so: tests/fmus3/broken/$(1).c \
                                                          $(KIT3_FILES) \
                                                          $(wildcard tests/fmus3/*/model.c)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(FMU3_CFLAGS) -o $$@ $$< -lm
endef
$(foreach n,$(BROKEN3_NAMES),$(eval $(call BROKEN3_RULE,$(n))))

# The importers' tests load the broken FMUs too (a refused library, named).
$(BUILD)/tests/test_fmu_kit: | $(BROKEN_FMUS)
$(BUILD)/tests/test_fmu3_kit: | $(BROKEN3_FMUS)

# ---- the hand-written wrapper FMU (the runtime's own test of its core and FMI 2.0 skin) ---
# tests/e2e/manual/window_sa.c is written in the shape sacc emits; linked with the runtime it
# is a real wrapper FMU directory, $(BUILD)/e2e-manual/window_sa/, whose resources/window/ is
# the extracted test FMU.  tests/unit/test_sart_wrapper.c loads it as any importer would
# (dlopen only): its explicit rule below overrides the test_sart_% pattern, so the test
# binary does not link the runtime.
WSA_DIR := $(BUILD)/e2e-manual/window_sa
WSA_SO  := $(WSA_DIR)/binaries/linux64/window_sa.so
WSA_RES := $(WSA_DIR)/resources/window/modelDescription.xml

# The FMI 2.0 skin's runtime: every runtime source but the FMI 3.0 skin, as sacc packs it.
WSA_RT  := $(filter-out runtime/sart_fmi3.c,$(RUNTIME_SRC))

$(WSA_SO): tests/e2e/manual/window_sa.c $(WSA_RT) $(RUNTIME_HDR)
	@mkdir -p $(dir $@)
	$(CC) -std=c99 -O2 -fPIC -shared -fvisibility=hidden -Wall -Wextra -Wpedantic -Werror \
	    -Iruntime -Iruntime/fmi2 $(SANFLAGS) -o $@ tests/e2e/manual/window_sa.c $(WSA_RT) \
	    -lm -ldl

$(WSA_RES): $(BUILD)/fmus/window.fmu
	@rm -rf $(WSA_DIR)/resources/window
	@mkdir -p $(WSA_DIR)/resources/window
	cp -R $(BUILD)/fmus/window/. $(WSA_DIR)/resources/window/

$(BUILD)/tests/test_sart_wrapper: tests/unit/test_sart_wrapper.c tests/unit/fmi2_importer.h \
                                  $(KIT_FILES) $(WSA_SO) $(WSA_RES)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Itests/unit -Iruntime/fmi2 -o $@ $< -lcmocka -ldl -lm

# ---- packaging: `sacc build` (compiler/package/package.c, compiler/package/zip.c) -----------------------
# sacc carries the runtime's sources, so that an installed sacc needs no checkout: the
# generator compiler/tools/embed.c turns runtime/*.c, runtime/*.h and the FMI headers
# (runtime/fmi2/*.h, runtime/fmi3/*.h) into $(BUILD)/gen/runtime_files.c
# (pkg_runtime_files[], data only), compiled into libsacc.a.
# compiler/ still links nothing of runtime/.  The file list is kept in a stamp rewritten only
# when it changes, so adding or removing a runtime file regenerates the table too.
EMBED       := $(BUILD)/tools/embed
EMBED_FILES := $(sort $(wildcard runtime/*.c runtime/*.h runtime/fmi2/*.h runtime/fmi3/*.h \
                 runtime/host/*.c))
EMBED_LIST  := $(BUILD)/gen/runtime_files.list
EMBED_C     := $(BUILD)/gen/runtime_files.c
EMBED_OBJ   := $(BUILD)/obj/runtime_files.o

.PHONY: embed-list-force powerwindow-fmus

$(EMBED): compiler/tools/embed.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -o $@ $<

$(EMBED_LIST): embed-list-force
	@mkdir -p $(dir $@)
	@echo '$(EMBED_FILES)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(EMBED_C): $(EMBED) $(EMBED_FILES) $(EMBED_LIST)
	$(EMBED) $@ runtime/ $(EMBED_FILES)

$(EMBED_OBJ): $(EMBED_C) $(COMPILER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -c -o $@ $<

# An extra prerequisite of the archive rule above: its `ar rcs $@ $^` takes it in.
$(BUILD)/libsacc.a: $(EMBED_OBJ)

# The power-window adaptations as FMUs: $(BUILD)/powerwindow/<name>.fmu, one `sacc build`
# for all six (inner adaptations first: loop_sa finds the window_sa.fmu just built); part of
# `make` (all).
PW_SA   := $(sort $(wildcard adaptations/powerwindow/*.sa))
PW_FMUS := $(patsubst adaptations/powerwindow/%.sa,$(BUILD)/powerwindow/%.fmu,$(PW_SA))

$(PW_FMUS) &: $(SACC) $(FMUS) $(PW_SA)
	@mkdir -p $(BUILD)/powerwindow
	$(SACC) build -L $(BUILD)/fmus -I adaptations/powerwindow -o $(BUILD)/powerwindow $(PW_SA)

powerwindow-fmus: $(PW_FMUS)
all: $(PW_FMUS)

# The declarative power-window adaptations (docs/language.md, section 14): $(BUILD)/powerwindow-declarative/,
# beside the hand-written ones they import where they do not replace them (window_sa).
PWD_SA   := $(sort $(wildcard adaptations/powerwindow-declarative/*.sa))
PWD_FMUS := $(patsubst adaptations/powerwindow-declarative/%.sa,$(BUILD)/powerwindow-declarative/%.fmu,$(PWD_SA))

$(PWD_FMUS) &: $(SACC) $(FMUS) $(PW_FMUS) $(PWD_SA)
	@mkdir -p $(BUILD)/powerwindow-declarative
	$(SACC) build -L $(BUILD)/fmus -L $(BUILD)/powerwindow -I adaptations/powerwindow-declarative \
	    -I adaptations/powerwindow -o $(BUILD)/powerwindow-declarative $(PWD_SA)

all: $(PWD_FMUS)

# ---- end-to-end wrapper FMUs (tests/unit/test_e2e_wrapper.c) ----------------------------
# Scripts under tests/e2e/ that the end-to-end tests step beside the power-window FMUs
# (loop_flat: loop_sa without its window_sa layer), built by `sacc build` as users would.
E2E_SA   := $(sort $(wildcard tests/e2e/*.sa))
E2E_FMUS := $(patsubst tests/e2e/%.sa,$(BUILD)/e2e/%.fmu,$(E2E_SA))

$(E2E_FMUS) &: $(SACC) $(FMUS) $(E2E_SA)
	@mkdir -p $(BUILD)/e2e
	$(SACC) build -L $(BUILD)/fmus -o $(BUILD)/e2e $(E2E_SA)

# ---- the fast step against the general path (tests/unit/test_e2e_wrapper.c) -------------
# The same scripts built twice more through $CC, which `sacc build` compiles with: with
# -DSART_NO_FAST_STEP (every step on the general path: the harness compares both paths) and
# with -DSART_STEP_STATS (the steps counted, read back through sart_step_stats), see
# runtime/sart_fast_step.c.
PATHS_SA      := adaptations/powerwindow/power_sa.sa adaptations/powerwindow/window_sa.sa \
                 bench/wrapper/passthrough_sa.sa
PATHS_NAMES   := $(basename $(notdir $(PATHS_SA)))
PATHS_GENERAL := $(patsubst %,$(BUILD)/paths-general/%.fmu,$(PATHS_NAMES))
PATHS_STATS   := $(patsubst %,$(BUILD)/paths-stats/%.fmu,$(PATHS_NAMES))

$(PATHS_GENERAL) &: $(SACC) $(FMUS) $(PATHS_SA)
	@mkdir -p $(BUILD)/paths-general
	CC="$(CC) -DSART_NO_FAST_STEP" $(SACC) build -L $(BUILD)/fmus -o $(BUILD)/paths-general $(PATHS_SA)

$(PATHS_STATS) &: $(SACC) $(FMUS) $(PATHS_SA)
	@mkdir -p $(BUILD)/paths-stats
	CC="$(CC) -DSART_STEP_STATS" $(SACC) build -L $(BUILD)/fmus -o $(BUILD)/paths-stats $(PATHS_SA)

$(BUILD)/tests/test_e2e_wrapper: | $(PATHS_GENERAL) $(PATHS_STATS) $(PW_FMUS) $(E2E_FMUS)
# SSP composites (tests/unit/test_ssp_build.c): sacc builds them, the FMI 3.0 checker reads one.
$(BUILD)/tests/test_ssp_build: | $(SACC) $(FMUS) $(FMUS3) $(FMI3_MD_CHECK)

# Wrappers built as FMI 3.0: tests/unit/test_e2e_wrapper3.c builds them itself (through
# pkg_build, as `sacc build` would with the FMI 3.0 option) over the test FMUs, unpacks them
# with sacc and checks their model descriptions with fmi3_md_check.
$(BUILD)/tests/test_e2e_wrapper3: | $(SACC) $(FMUS) $(FMI3_MD_CHECK)

# Wrappers over the FMI 3.0 inner with every type (tests/unit/test_e2e_types3.c builds them
# itself from tests/e2e/types3/alltypes_sa.sa over build/fmus3/alltypes3.fmu).
$(BUILD)/tests/test_e2e_types3: | $(SACC) $(FMUS3) $(FMI3_MD_CHECK)

# An FMI 3.0 inner's Binary ports forwarded (tests/unit/test_e2e_binary3.c builds the same
# pass-through into BUILD/e2e-binary3/, in process and isolated).
$(BUILD)/tests/test_e2e_binary3: | $(SACC) $(FMUS3) $(FMI3_MD_CHECK) $(FMU_HOST)

# String ports through wrappers of both versions (tests/unit/test_e2e_strings.c builds them
# itself from tests/e2e/strings_sa.sa, as test_e2e_wrapper3 does).
$(BUILD)/tests/test_e2e_strings: | $(SACC) $(FMUS) $(FMI3_MD_CHECK)

# Wrappers with isolated inners: tests/unit/test_e2e_isolated.c builds them itself with
# `sacc build --isolate` (the host program in the archive) and unpacks them with sacc.
$(BUILD)/tests/test_e2e_isolated: | $(SACC) $(FMUS)

# Wrappers built with --threads: tests/unit/test_e2e_threads.c builds tests/e2e/threads_sa.sa
# itself with one thread and with two (every batch forced parallel) and compares them.
$(BUILD)/tests/test_e2e_threads: | $(SACC) $(FMUS) $(FMU_HOST)
# Array ports (tests/unit/test_e2e_arrays3.c builds tests/e2e3/array3_sa.sa and matrix3_sa.sa
# over build/fmus3, in process and isolated, and checks the model descriptions).
$(BUILD)/tests/test_e2e_arrays3: | $(SACC) $(FMUS3) $(FMI3_MD_CHECK) $(FMU_HOST)
# String arrays (tests/unit/test_e2e_strarr3.c builds tests/e2e3/strarr3_sa.sa and
# strindex3_sa.sa over build/fmus3, in process and isolated).
$(BUILD)/tests/test_e2e_strarr3: | $(SACC) $(FMUS3) $(FMI3_MD_CHECK) $(FMU_HOST)
# `sacc emit` against `sacc build` (tests/unit/test_emit_build.c runs both over scripts of
# tests/e2e, tests/e2e3 and adaptations/ and compares the archive's sources with emit's).
$(BUILD)/tests/test_emit_build: | $(SACC) $(FMUS) $(FMUS3) $(FMU_HOST)
# Wrappers over events3, an FMI 3.0 inner that needs Event Mode: tests/unit/test_e2e_events3.c
# builds tests/e2e3/events3_sa.sa with `sacc build` (FMI 2.0 and 3.0, in and out of process),
# and events3_whole_sa.sa (whole steps: no early return) as FMI 3.0.
$(BUILD)/tests/test_e2e_events3: | $(SACC) $(FMUS3)
# Wrappers over early3, an FMI 3.0 inner that returns early: tests/unit/test_e2e_early3.c
# builds tests/e2e3/early3_sa.sa (FMI 3.0, isolated, FMI 2.0) and early3_outer_sa.sa over it.
$(BUILD)/tests/test_e2e_early3: | $(SACC) $(FMUS3)
# noevent3 refuses Event Mode: tests/unit/test_e2e_noevent3.c simulates it and builds
# tests/e2e3/noevent3_sa.sa over it.
$(BUILD)/tests/test_e2e_noevent3: | $(SACC) $(FMUS3)

# ---- benchmarks (on demand, never part of check) ----------------------------------------
.PHONY: bench-wrapper
bench-wrapper: deps $(SACC) $(FMUS)
	@SACC=$(SACC) BUILD=$(BUILD) sh bench/wrapper/run.sh

# What an inner FMU out of process costs: a set(3)/doStep/get(2) cycle on the window FMU,
# in process and isolated; the last line is `isolated_round_trip_us N` (the median).
ISO_BENCH := $(BUILD)/bench/isolation/roundtrip
.PHONY: bench-isolation
ISO_BENCH_WINDIR := $(BUILD)/bench/isolation/window-win64
ifneq ($(shell command -v $(MINGW_CC) 2>/dev/null),)
ISO_BENCH_WINE := $(ISO_BENCH_WINDIR)/binaries/win64/window.dll $(WIN_HOST_BUILT)
endif
bench-isolation: $(ISO_BENCH) $(FMU_HOST) $(BUILD)/fmus/window.fmu $(ISO_BENCH_WINE)
	@$(ISO_BENCH) $(BUILD)

# The Wine line: the window FMU cross-built for Windows (binaries/win64/ only) in the host
# built for Windows, under Wine in the user's prefix (made once, ~/.cache/sacc/wine, or
# SACC_WINEPREFIX); without mingw-w64 or Wine the line says it is skipped.
$(ISO_BENCH_WINDIR)/binaries/win64/window.dll: tests/fmus/window/model.c $(KIT_FILES)
	@mkdir -p $(dir $@)
	cp tests/fmus/window/modelDescription.xml $(ISO_BENCH_WINDIR)/
	$(MINGW_CC) -std=c99 -O2 -shared -D__USE_MINGW_ANSI_STDIO=1 -Wall -Wextra -Wpedantic \
		-Werror -Itests/fmus/kit -Iruntime/fmi2 -Itests/fmus/window -o $@ \
		tests/fmus/window/model.c tests/fmus/kit/fmu_kit.c -static -Wl,--no-insert-timestamp \
		-lm -lpthread

$(ISO_BENCH): bench/isolation/roundtrip.c bench/bench.h $(BUILD)/libsart.a $(RUNTIME_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Iruntime -o $@ $< $(BUILD)/libsart.a -ldl -lm

# Benchmark 1, two coupled masses: six schemes of `sacc simulate` against the
# exact monolithic reference (DRIVER=handloop: the hand-written master instead).  The
# reference, like the two mass FMUs, uses GSL's matrix exponential.
TM_BENCH := $(BUILD)/bench/two_mass
.PHONY: bench-two-mass
bench-two-mass: deps $(SACC) $(FMUS) $(TM_BENCH)/reference $(TM_BENCH)/handloop $(TM_BENCH)/approx
	@SACC=$(SACC) BUILD=$(BUILD) sh bench/two_mass/run.sh
	@echo
	@$(TM_BENCH)/approx $(BUILD)

$(TM_BENCH)/reference: bench/two_mass/reference.c bench/two_mass/twomass_ref.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -o $@ $< -lgsl -lgslcblas -lm

$(TM_BENCH)/handloop: bench/two_mass/handloop.c $(RUNTIME_HDR) tests/unit/fmi_strict.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Iruntime/fmi2 -Itests/unit -o $@ $< -ldl -lm

# Benchmark 2, algebraic loops: iterations per solver for each loop
# (bench/loops/loops.c over libsart.a and the test FMUs affine, nl_planes, nl_sphere).
LOOPS_BENCH := $(BUILD)/bench/loops/loops
.PHONY: bench-loops
bench-loops: deps $(FMUS) $(LOOPS_BENCH)
	@$(LOOPS_BENCH) $(BUILD)

$(LOOPS_BENCH): bench/loops/loops.c bench/loops/loop_scenarios.h $(ORCH_LIB) $(BUILD)/libsart.a \
                $(ORCH_HDR) $(RUNTIME_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Iorchestrator -Iruntime -o $@ $< $(ORCH_LIB) $(BUILD)/libsart.a \
	    -ldl -lm

# Benchmark 3, throughput: the orchestrator's instructions and time per macro
# step over three integrator FMUs, against a hand-written loop over the same FMUs and the
# same scenario as one wrapper FMU (bench/master/ring_sa.sa, built by run.sh with $(SACC)).
MASTER_BENCH := $(BUILD)/bench/master/throughput
.PHONY: bench-master
bench-master: deps $(SACC) $(BUILD)/fmus/integrator.fmu $(MASTER_BENCH)
	@SACC=$(SACC) BUILD=$(BUILD) sh bench/master/run.sh

# The master's objects and the seam's, taken from the archives as needed.
MASTER_BENCH_OBJ := $(ORCH_LIB) $(BUILD)/libsart.a
$(MASTER_BENCH): bench/master/throughput.c $(MASTER_BENCH_OBJ) $(ORCH_HDR) $(RUNTIME_HDR) \
                 tests/unit/fmi_strict.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Iorchestrator -Iruntime -Iruntime/fmi2 -Itests/unit -o $@ $< \
	    $(MASTER_BENCH_OBJ) -ldl -lm

# quadratic extrapolation on the two masses, through the library (a separate table)
$(TM_BENCH)/approx: bench/two_mass/approx.c bench/two_mass/twomass_ref.h bench/bench.h \
                    $(MASTER_BENCH_OBJ) $(ORCH_HDR) $(RUNTIME_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Iorchestrator -Iruntime -Ibench/two_mass -o $@ $< $(MASTER_BENCH_OBJ) \
	    -lgsl -lgslcblas -ldl -lm

# tests/unit/test_two_mass.c checks the FMUs against the reference's header: it links GSL.
$(BUILD)/tests/test_two_mass: LDLIBS += -lgsl -lgslcblas
$(BUILD)/tests/test_two_mass: bench/two_mass/twomass_ref.h
$(BUILD)/tests/test_sart_loops: bench/loops/loop_scenarios.h
# tests/unit/test_sart_stepsize.c checks step-size control against the same reference.
$(BUILD)/tests/test_sart_inner_fmi3 $(BUILD)/tests/test_simulate_fmi3: | $(FMUS3)
$(BUILD)/tests/test_sart_interm3: | $(BUILD)/fmus3/interm3.fmu
# interm3 asks for its input inside steps: tests/unit/test_simulate_interm3.c runs it bare,
# tests/unit/test_e2e_interm3.c builds tests/e2e3/interm3_sa.sa over it (FMI 2.0 and 3.0, and
# 3.0 with the inner out of process).
$(BUILD)/tests/test_simulate_interm3 $(BUILD)/tests/test_e2e_interm3: | $(SACC) $(FMU_HOST) \
                                                                      $(BUILD)/fmus3/interm3.fmu
$(BUILD)/tests/test_simulate_arrays $(BUILD)/tests/test_simulate_strarr: | $(FMUS3)
$(BUILD)/tests/test_simulate_clocks: | $(SACC) $(FMU_HOST) $(FMUS3)
$(BUILD)/tests/test_sart_inner_se: | $(FMU_HOST) $(FMUS3)
# A wrapper over clocks_se, the Scheduled Execution test FMU: tests/unit/test_e2e_clocks.c
$(BUILD)/tests/test_e2e_clocks: | $(SACC) $(FMUS3)
$(BUILD)/tests/test_sart_stepsize: LDLIBS += -lgsl -lgslcblas
$(BUILD)/tests/test_sart_stepsize: bench/two_mass/twomass_ref.h
# tests/unit/test_sweep.c writes the exact two-mass solution as a --sweep reference.
$(BUILD)/tests/test_sweep: LDLIBS += -lgsl -lgslcblas
$(BUILD)/tests/test_sweep: bench/two_mass/twomass_ref.h

# Parallel stepping (`sacc simulate --threads N`): four FMUs of ~100 us per step on one
# thread and on two (parallel_speedup), and trivial ones (trivial_ratio); bench/parallel/.
.PHONY: bench-parallel
bench-parallel: deps $(SACC) $(BUILD)/fmus/burn.fmu
	@SACC=$(SACC) BUILD=$(BUILD) sh bench/parallel/run.sh

# The same inside one wrapper (`sacc build --threads N`): four_sa.sa, four burn FMUs as one
# batch of do_steps, built with one thread and with two (bench/parallel/wrapper.sh).
.PHONY: bench-parallel-wrapper
bench-parallel-wrapper: deps $(SACC) $(BUILD)/fmus/burn.fmu
	@SACC=$(SACC) BUILD=$(BUILD) sh bench/parallel/wrapper.sh

# The cost of one number's text: the shortest formatter (runtime/sart_numfmt.c) beside
# snprintf("%.17g") and the "%.17g" formatter sacc used before (bench/numfmt/old_numfmt.c).
NUMFMT_BENCH := $(BUILD)/bench/numfmt/numfmt_bench
.PHONY: bench-numfmt
bench-numfmt: $(NUMFMT_BENCH)
	@BUILD=$(BUILD) sh bench/numfmt/run.sh

$(NUMFMT_BENCH): bench/numfmt/bench.c bench/numfmt/old_numfmt.c bench/numfmt/old_numfmt.h bench/bench.h \
                 runtime/sart_numfmt.c runtime/sart_numfmt.h runtime/sart_numfmt_pow10.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Iruntime -Ibench/numfmt -o $@ bench/numfmt/bench.c \
	    bench/numfmt/old_numfmt.c runtime/sart_numfmt.c -lm

# How long an editor waits for diagnostics: `sacc lsp` over pipes, a didChange on each
# power-window script to its publishDiagnostics (bench/lsp/bench_lsp.c).
LSP_BENCH := $(BUILD)/bench/lsp/bench_lsp
.PHONY: bench-lsp
bench-lsp: $(LSP_BENCH) $(SACC) $(FMUS)
	@$(LSP_BENCH) $(SACC) $(BUILD)/fmus adaptations/powerwindow $(PW_SA)

$(LSP_BENCH): bench/lsp/bench_lsp.c bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Ibench -o $@ $<

# The runtime's ODE solvers (runtime/sart_ode.h: what integrates a Model Exchange FMU)
# against GSL's odeiv2 steppers at equal accuracy on two non-stiff and two stiff problems
# (bench/me/odebench.c; every sweep point in $(BUILD)/bench/me/sweep.csv), then the stiff
# one through the Model Exchange test FMU mestiff by `sacc simulate` (timed by bench-scale's
# rusage), against the same integration done directly.
ME_BENCH := $(BUILD)/bench/me/odebench
.PHONY: bench-me
bench-me: deps $(ME_BENCH) $(SACC) $(BUILD)/bench/scale/rusage $(BUILD)/fmus_me/fmi2/mestiff.fmu \
          $(BUILD)/fmus_me/fmi3/mestiff.fmu
	@BUILD=$(BUILD) SACC=$(SACC) sh bench/me/run.sh

$(ME_BENCH): bench/me/odebench.c bench/me/problems.c bench/me/problems.h bench/bench.h \
             $(BUILD)/libsart.a $(RUNTIME_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Iruntime -o $@ bench/me/odebench.c bench/me/problems.c \
	    $(BUILD)/libsart.a -lgsl -lgslcblas -lm

# ---- the power-window case study end to end (make demo, test_powerwindow, bench) ---------
# The monolithic reference (models/reference/powerwindow_ref.c: the same physics and chart as
# one system, integrated by GSL's BDF stepper, msbdf) and the comparison tool
# (bench/powerwindow/compare.c: contact, detection, reversal, peak current, height
# differences).  Both share only models/reference/powerwindow_constants.h with the FMUs.
PW_REF    := $(BUILD)/reference/powerwindow_ref
PW_CMP    := $(BUILD)/bench/powerwindow/pw_compare
PW_CONSTS := models/reference/powerwindow_constants.h
.PHONY: powerwindow-case bench-powerwindow

$(PW_REF): models/reference/powerwindow_ref.c $(PW_CONSTS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Imodels/reference -o $@ $< -lgsl -lgslcblas -lm

$(PW_CMP): bench/powerwindow/compare.c $(PW_CONSTS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Imodels/reference -o $@ $< -lm

powerwindow-case: $(SACC) $(FMUS) $(PW_FMUS) $(PWD_FMUS) $(PW_REF) $(PW_CMP)

# tests/unit/test_powerwindow.c runs the scenario, the reference and the comparison, and
# the scenario with tests/powerwindow/controller_naive_sa (no crossing location) for the
# late-detection mismatch.
PW_NAIVE := $(BUILD)/powerwindow-test/controller_naive_sa.fmu
$(PW_NAIVE): tests/powerwindow/controller_naive_sa.sa $(SACC) $(PW_FMUS)
	@mkdir -p $(dir $@)
	$(SACC) build -L $(BUILD)/fmus -L $(BUILD)/powerwindow -I adaptations/powerwindow \
	    -o $(dir $@) $<
$(BUILD)/tests/test_powerwindow: | $(PW_REF) $(PW_CMP) $(PW_NAIVE) $(PWD_FMUS)

# The cost of the co-simulation against the reference at equal accuracy (on demand).
bench-powerwindow: deps powerwindow-case
	@SACC=$(SACC) BUILD=$(BUILD) sh bench/powerwindow/run.sh

# ---- tests ------------------------------------------------------------------------------
# Tests that drive FMUs directly include the kit's headers (and its C, for kit tests).
# The runtime's and the master's tests (test_sart_*) also link libsart.a and get the broken
# FMUs built.  Every test may link the orchestrator (the sweep's, the progress line's, ...).
$(BUILD)/tests/test_sart_%: tests/unit/test_sart_%.c $(ORCH_LIB) $(BUILD)/libsart.a \
                            $(BUILD)/libsacc.a $(wildcard tests/unit/*.h) $(KIT_FILES) $(ORCH_HDR) \
                            $(RUNTIME_HDR) | $(BROKEN_FMUS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Itests/unit -Itests/fmus/kit -Iorchestrator -Iruntime \
	    -Iruntime/fmi2 -o $@ $< $(ORCH_LIB) $(BUILD)/libsart.a $(BUILD)/libsacc.a $(LDLIBS) \
	    -lcmocka -ldl

# The out-of-process tests run the host program and crash the fault FMU.
$(BUILD)/tests/test_sart_isolate: | $(FMU_HOST) $(BUILD)/fmus/faulty.fmu
# The seam's Model Exchange layer steps the ME test FMUs, in process and out of it.
$(BUILD)/tests/test_sart_inner_me: | $(FMU_HOST) $(FMUS_ME)
$(BUILD)/tests/test_simulate_me: | $(FMUS_ME)
$(BUILD)/tests/test_e2e_me: | $(SACC) $(FMUS_ME)

$(BUILD)/tests/test_%: tests/unit/test_%.c $(ORCH_LIB) $(BUILD)/libsacc.a $(wildcard tests/unit/*.h) \
                       $(KIT_FILES) $(ORCH_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Itests/unit -Itests/fmus/kit -Iorchestrator -Iruntime/fmi2 \
	    -Iruntime/fmi3 -o $@ $< $(ORCH_LIB) $(BUILD)/libsacc.a $(LDLIBS) -lcmocka -ldl

# The suite runs its tests $(JOBS) at a time (make -j, each test's output printed whole
# when it ends: -O), the slowest first so that the last ones to start are short.  Every
# test binary works in directories of its own, so they may run in any order and at once.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SLOW_TESTS := test_e2e_wrapper test_e2e_isolated test_e2e_wrapper3 test_powerwindow \
              test_e2e_arrays3 test_e2e_strarr3 test_simulate test_e2e_events3 test_emit_build \
              test_e2e_types3 test_e2e_early3 test_e2e_threads test_ssp_build test_e2e_strings \
              test_e2e_me test_scale test_scale_wrapper test_lsp test_sart_parallel test_package
UNIT_NAMES := $(notdir $(UNIT_BIN))
UNIT_ORDER := $(filter $(SLOW_TESTS),$(UNIT_NAMES)) $(filter-out $(SLOW_TESTS),$(UNIT_NAMES))
UNIT_RUNS  := $(patsubst %,run-unit-%,$(UNIT_ORDER))
UNIT_NEEDS := $(UNIT_BIN) $(SACC) $(FMUS) $(FMUS3) $(FMUS_ME) $(PW_FMUS) $(PWD_FMUS) $(E2E_FMUS)
.PHONY: $(UNIT_RUNS) check-core-run

$(UNIT_RUNS): run-unit-%:
	@SACC_BUILD=$(BUILD) $(BUILD)/tests/$*

check-unit:
	@$(MAKE) --no-print-directory -j$(JOBS) $(UNIT_NEEDS)
	@$(MAKE) --no-print-directory -k -O -j$(JOBS) $(UNIT_RUNS)

check-golden: $(SACC) $(FMUS)
	@SACC=$(SACC) BUILD=$(BUILD) sh tests/golden/run.sh

golden-update: $(SACC) $(FMUS)
	@SACC=$(SACC) BUILD=$(BUILD) UPDATE=1 sh tests/golden/run.sh

# Source wrappers: each built, rebuilt from its build description alone by a script that
# knows nothing of sacc (tests/srcfmu/build_from_sources.sh), and run beside the original.
check-srcfmu: $(SACC) $(FMUS) $(FMUS3) $(FMUS_ME)
	@SACC=$(SACC) BUILD=$(BUILD) sh tests/srcfmu/run.sh

# The documentation's examples (docs/examples/) and the commands of its sh blocks, run
# against the built sacc (tests/docs/run.sh says how they are marked).
# Neovim's own LSP client drives `sacc lsp` headless (tests/nvim/run.sh; skipped, saying
# so, without nvim).
.PHONY: check-nvim
check-nvim: $(SACC) $(BUILD)/fmus/window.fmu
	@SACC=$(SACC) BUILD=$(BUILD) sh tests/nvim/run.sh

# The stages include only earlier stages' headers (tests/layers/run.sh).
.PHONY: check-layers
check-layers:
	@sh tests/layers/run.sh

check-docs: $(SACC) $(FMUS) $(PW_FMUS) $(FMUS3)
	@SACC=$(SACC) BUILD=$(BUILD) sh tests/docs/run.sh

# Everything check-core runs is built first (itself $(JOBS) at a time), then the unit
# tests, the goldens, the docs' examples and the ensemble tests run side by side.  The
# editors' files and the source wrappers' builds (they test no C of sacc's beyond what the
# unit tests run) are left out of the sanitizer's pass over it (check-asan sets SAN).
CORE_EXTRAS := $(if $(SAN),,check-editors check-nvim check-srcfmu)
check-core:
	@$(MAKE) --no-print-directory -j$(JOBS) $(UNIT_NEEDS) $(BUILD)/fmus/integrator.fmu
	@$(MAKE) --no-print-directory -k -O -j$(JOBS) $(UNIT_RUNS) check-golden check-docs \
	    check-ensemble check-layers $(CORE_EXTRAS)

# The editors' support (editors/): the keyword lists agree with the lexer's, vim and neovim
# load the Vim files headless and highlight as expected, and the VS Code grammar's scopes
# are checked by vscode-tmgrammar-test from npm (skipped, saying so, without npm or the
# network; tests/editors/run.sh).
.PHONY: check-editors
check-editors:
	@mkdir -p $(BUILD)
	@BUILD=$(BUILD) sh tests/editors/run.sh

# The VS Code extension as a .vsix (editors/vscode/README.md): a copy of editors/vscode in
# $(BUILD)/vscode, its dependencies from npm's registry, packed by vsce, so that no
# node_modules lands in the source tree.
.PHONY: vscode-extension
vscode-extension:
	@rm -rf $(BUILD)/vscode && mkdir -p $(BUILD)/vscode
	cp -r editors/vscode/. $(BUILD)/vscode/
	cp LICENSE $(BUILD)/vscode/LICENSE
	cd $(BUILD)/vscode && npm ci --omit=dev --no-audit --no-fund && \
	    npx --yes @vscode/vsce@3 package --allow-missing-repository \
	        --out sacc-adaptations.vsix
	@echo "VS Code extension: $(BUILD)/vscode/sacc-adaptations.vsix (code --install-extension it)"

# `sacc ensemble` on this machine: local runs, failures, resuming, statistics
# (tests/ensemble/run.sh); and through a real single-node Slurm started for the test
# (tests/slurm/run.sh, which skips naming the packages when Slurm is absent and it cannot
# install them).
check-ensemble: $(SACC) $(BUILD)/fmus/integrator.fmu
	@SACC=$(SACC) BUILD=$(BUILD) sh tests/ensemble/run.sh

check-slurm: $(SACC) $(BUILD)/fmus/integrator.fmu
	@SACC=$(SACC) BUILD=$(BUILD) sh tests/slurm/run.sh

# win64 wrappers beside linux64 ones: cross-built with mingw-w64 and stepped under Wine by
# the suite's importers built for Windows (tests/wine/run.sh, which skips naming the Debian
# packages when mingw-w64 or Wine is absent).
check-wine: $(SACC) $(FMUS) $(FMUS3) $(FMU_PACK) $(WIN_HOST_BUILT)
	@SACC=$(SACC) BUILD=$(BUILD) sh tests/wine/run.sh

# Runs per second with 1 and 2 local processes and through Slurm, and sacc's own cost per
# run (bench/ensemble/run.sh).
.PHONY: bench-ensemble
bench-ensemble: deps $(SACC) $(BUILD)/fmus/integrator.fmu
	@SACC=$(SACC) BUILD=$(BUILD) sh bench/ensemble/run.sh

# Scale: a chain of N pass-through FMUs (N = 100, 1000, 10000) in `sacc simulate`, the
# time per FMU step, the set-up and the peak memory (bench/scale/run.sh; rusage.c times).
SCALE_BENCH := $(BUILD)/bench/scale/rusage
.PHONY: bench-scale
bench-scale: deps $(SACC) $(BUILD)/fmus/passthrough.fmu $(SCALE_BENCH)
	@SACC=$(SACC) BUILD=$(BUILD) sh bench/scale/run.sh

$(SCALE_BENCH): bench/scale/rusage.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -o $@ $<

# Every benchmark once in its quick mode (BENCH_QUICK=1: few repetitions, small sizes,
# every figure still computed and printed), one after another so that none times another's
# load; fails when one does: a benchmark that cannot compute a figure exits non-zero
# (bench/README.md).  Each one's time is printed after it.
BENCHES := bench-wrapper bench-isolation bench-two-mass bench-loops bench-master bench-parallel \
           bench-parallel-wrapper bench-numfmt bench-powerwindow bench-ensemble bench-scale \
           bench-me bench-lsp
.PHONY: check-bench
check-bench:
	@failed=; for b in $(BENCHES); do \
	  echo "== $$b (BENCH_QUICK=1)"; t0=$$(date +%s); \
	  BENCH_QUICK=1 $(MAKE) --no-print-directory $$b || failed="$$failed $$b"; \
	  echo "== $$b: $$(($$(date +%s) - t0)) s"; done; \
	if [ -n "$$failed" ]; then echo "check-bench: failed:$$failed"; exit 1; fi; \
	echo "check-bench: all $(words $(BENCHES)) benchmarks ran"

# The simulate tests again with every inner FMU out of process (simulate_test.h adds
# --isolate all when SACC_TEST_ISOLATE=1), and the end-to-end wrapper tests over the same
# wrappers built with `sacc build --isolate all` into BUILD/<dir>-iso/ (test_e2e_wrapper.c
# opens those when SACC_TEST_ISOLATE=1).
ISOLATED_TESTS := test_simulate test_simulate_faults test_sweep test_simulate_fmi3 \
                  test_e2e_wrapper test_simulate_me test_simulate_interm3 test_simulate_clocks
ISO_E2E := $(patsubst $(BUILD)/%,$(BUILD)/%-iso.stamp,$(BUILD)/e2e $(BUILD)/paths-general \
             $(BUILD)/paths-stats $(BUILD)/powerwindow)
ISO_RUNS := $(patsubst %,run-iso-%,$(ISOLATED_TESTS))
.PHONY: $(ISO_RUNS)
$(ISO_RUNS): run-iso-%:
	@SACC_TEST_ISOLATE=1 SACC_BUILD=$(BUILD) $(BUILD)/tests/$*

check-isolated:
	@$(MAKE) --no-print-directory -j$(JOBS) $(SACC) $(FMUS) \
	    $(patsubst %,$(BUILD)/tests/%,$(ISOLATED_TESTS)) $(ISO_E2E)
	@$(MAKE) --no-print-directory -k -O -j$(JOBS) $(ISO_RUNS)

# The isolation tests over the runtime's POSIX fallback (SART_PORTABLE_POSIX: no futex,
# memfd seal or parent-death signal; what a source wrapper gets on a POSIX system other
# than Linux), in a build directory of their own beside BUILD.
PORTABLE_BUILD := $(BUILD)/portable
.PHONY: check-portable
check-portable:
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=$(PORTABLE_BUILD) \
	    CFLAGS='$(CFLAGS) -DSART_PORTABLE_POSIX' $(PORTABLE_BUILD)/sacc-fmu-host \
	    $(PORTABLE_BUILD)/tests/test_sart_isolate $(PORTABLE_BUILD)/fmus/window.fmu \
	    $(PORTABLE_BUILD)/fmus/power.fmu $(PORTABLE_BUILD)/fmus/controller.fmu
	@SACC_BUILD=$(PORTABLE_BUILD) $(PORTABLE_BUILD)/tests/test_sart_isolate

$(BUILD)/e2e-iso.stamp: $(SACC) $(FMUS) $(E2E_SA)
	@mkdir -p $(BUILD)/e2e-iso
	$(SACC) build -L $(BUILD)/fmus -o $(BUILD)/e2e-iso --isolate all $(E2E_SA)
	@touch $@
$(BUILD)/paths-general-iso.stamp: $(SACC) $(FMUS) $(PATHS_SA)
	@mkdir -p $(BUILD)/paths-general-iso
	CC="$(CC) -DSART_NO_FAST_STEP" $(SACC) build -L $(BUILD)/fmus \
	    -o $(BUILD)/paths-general-iso --isolate all $(PATHS_SA)
	@touch $@
$(BUILD)/paths-stats-iso.stamp: $(SACC) $(FMUS) $(PATHS_SA)
	@mkdir -p $(BUILD)/paths-stats-iso
	CC="$(CC) -DSART_STEP_STATS" $(SACC) build -L $(BUILD)/fmus \
	    -o $(BUILD)/paths-stats-iso --isolate all $(PATHS_SA)
	@touch $@
$(BUILD)/powerwindow-iso.stamp: $(SACC) $(FMUS) $(PW_SA)
	@mkdir -p $(BUILD)/powerwindow-iso
	$(SACC) build -L $(BUILD)/fmus -I adaptations/powerwindow -o $(BUILD)/powerwindow-iso \
	    --isolate all $(PW_SA)
	@touch $@

check-asan:
	@$(MAKE) --no-print-directory BUILD=build/asan SAN=1 CFLAGS="-O1 -g" check-core

# ThreadSanitizer over the parallel stepping's tests only (the worker pool, the master's
# parallel passes, wrappers' batched do_steps, whose wrappers the test builds with $CC, here
# with -fsanitize=thread): its own build directory, the test FMUs as they are.
TSAN_TESTS := test_sart_parallel test_e2e_threads
check-tsan:
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=build/tsan \
	    SANFLAGS="-fsanitize=thread -fno-omit-frame-pointer" CFLAGS="-O1 -g" tsan-run

.PHONY: check-tsan tsan-run
tsan-run: $(patsubst %,$(BUILD)/tests/%,$(TSAN_TESTS)) $(BUILD)/fmus/burn.fmu \
          $(BUILD)/fmus/affine.fmu $(SACC) $(FMU_HOST)
	@fail=0; for t in $(TSAN_TESTS); do \
	  TSAN_OPTIONS="halt_on_error=1 exitcode=66" SACC_BUILD=$(BUILD) \
	    CC="$(CC) -fsanitize=thread" $(BUILD)/tests/$$t || fail=1; done; exit $$fail

# Every unit test under valgrind but test_sart_parallel: valgrind runs one thread at a time,
# so the worker pool's spin waits make it the slowest of all there, and what it tests,
# threads stepping FMUs at once, is what check-tsan and check-asan run it for.
VALGRIND_SKIP := test_sart_parallel
check-valgrind:
	@$(MAKE) --no-print-directory -j$(JOBS) $(UNIT_NEEDS)
	@JOBS=$(JOBS) SACC=$(SACC) BUILD=$(BUILD) sh tests/valgrind.sh \
	    $(patsubst %,$(BUILD)/tests/%,$(filter-out $(VALGRIND_SKIP),$(UNIT_ORDER)))

# Each suite in turn, each one running its tests $(JOBS) at a time; the time of each and of
# the whole is printed at the end, and every suite runs even after one has failed.
CHECK_SUITES := check-generated check-core check-isolated check-portable check-slurm check-wine \
                check-bench \
                check-asan \
                check-tsan check-valgrind
check: deps
	@start=$$(date +%s); failed=; times=; \
	for s in $(CHECK_SUITES); do \
	  t0=$$(date +%s); \
	  $(MAKE) --no-print-directory $$s || failed="$$failed $$s"; \
	  times="$$times $$s $$(( $$(date +%s) - t0 ))s"; \
	done; \
	echo "make check: suite times:$$times"; \
	echo "make check: $$(( $$(date +%s) - start )) s in all"; \
	if [ -n "$$failed" ]; then echo "make check: FAILED:$$failed"; exit 1; fi; \
	echo "make check: all suites passed"

# ---- the main job -----------------------------------------------------------------------
# demo: the adaptations checked and built, then the case study run end to end: the
# co-simulation and the reference, both CSVs, a plot and the comparison (build/demo/).
# `make demo FMI=3` also builds the power window's wrappers as FMI 3.0 (sacc build --fmi 3,
# into $(BUILD)/powerwindow-fmi3/) and runs the case study over them as well: its result
# must equal the FMI 2.0 run's bit for bit.
demo: deps-demo
	@$(MAKE) --no-print-directory all powerwindow-case $(if $(filter 3,$(FMI)),powerwindow-fmi3)
	@FMI=$(FMI) sh adaptations/demo.sh $(SACC) $(BUILD)

PW3_FMUS := $(patsubst adaptations/powerwindow/%.sa,$(BUILD)/powerwindow-fmi3/%.fmu,$(PW_SA))
.PHONY: powerwindow-fmi3
powerwindow-fmi3: $(PW3_FMUS)
$(PW3_FMUS) &: $(SACC) $(FMUS) $(PW_SA)
	@mkdir -p $(BUILD)/powerwindow-fmi3
	$(SACC) build --fmi 3 -L $(BUILD)/fmus -I adaptations/powerwindow -o $(BUILD)/powerwindow-fmi3 \
	    $(PW_SA)

# ---- installing -------------------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, the man page (docs/sacc.1) and the
# bash completion (written by the binary from its command table); make uninstall removes
# them.  The installed sacc needs no checkout: it carries the runtime's sources.
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR      := $(PREFIX)/bin
MAN1DIR     := $(PREFIX)/share/man/man1
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
.PHONY: install uninstall

install: $(SACC) $(FMU_HOST)
	install -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(MAN1DIR)' '$(DESTDIR)$(BASHCOMPDIR)'
	install -m 755 $(SACC) '$(DESTDIR)$(BINDIR)/sacc'
	install -m 755 $(FMU_HOST) '$(DESTDIR)$(BINDIR)/sacc-fmu-host'
	if [ -f $(WIN_HOST) ]; then install -m 644 $(WIN_HOST) '$(DESTDIR)$(BINDIR)/sacc-fmu-host.exe'; fi
	$(SACC) completion bash > $(BUILD)/sacc.bash
	install -m 644 $(BUILD)/sacc.bash '$(DESTDIR)$(BASHCOMPDIR)/sacc'
	if [ -f docs/sacc.1 ]; then install -m 644 docs/sacc.1 '$(DESTDIR)$(MAN1DIR)/sacc.1'; fi

uninstall:
	rm -f '$(DESTDIR)$(BINDIR)/sacc' '$(DESTDIR)$(BINDIR)/sacc-fmu-host' \
	      '$(DESTDIR)$(BINDIR)/sacc-fmu-host.exe' \
	      '$(DESTDIR)$(MAN1DIR)/sacc.1' '$(DESTDIR)$(BASHCOMPDIR)/sacc'

# ---- fuzzing (clang's libFuzzer) --------------------------------------------------------
FUZZ_SECONDS ?= 60
fuzz: deps
	@FUZZ_SECONDS=$(FUZZ_SECONDS) BUILD=$(BUILD) sh tests/fuzz/run.sh

clean:
	rm -rf build
