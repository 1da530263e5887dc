# extkit - one non-recursive Makefile (see STYLE.md "Build").
#
#   make                 library and tools
#   make check           unit, image and fuzz-seed tests (SANITIZE=1 for ASan+UBSan)
#   make e2diff          the differential test program against libext2fs (tests/diff)
#   make demo            build, make a sample image, inspect it
#   make fuzz            libFuzzer targets (clang)
#   make install PREFIX=/usr/local DESTDIR=
#   make sparse          endianness check with sparse
#   DEVELOPER=1          warnings are errors

CC       ?= cc
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
LIBDIR   ?= $(PREFIX)/lib
INCDIR   ?= $(PREFIX)/include
MANDIR   ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

CFLAGS   ?= -O2 -g
WARN     := -std=c11 -Wall -Wextra -Wvla -Wstrict-prototypes -Wno-sign-compare \
	    -Wno-missing-field-initializers
ifeq ($(DEVELOPER),1)
WARN     += -Werror
endif
ifeq ($(SANITIZE),1)
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# the runtimes linked in when gcc has them: a sanitized tool starts some
# 10% faster (fewer relocations), and the tests start thousands
SANLINK  := $(if $(filter /%,$(shell $(CC) -print-file-name=libasan.a)),-static-libasan) \
	    $(if $(filter /%,$(shell $(CC) -print-file-name=libubsan.a)),-static-libubsan)
BUILD    := build-san
# the leak check at exit only when a heap byte is left (tests/sanleak.c)
SANLEAK  := $(BUILD)/tests/sanleak.o
else
SANFLAGS :=
SANLINK  :=
BUILD    := build
SANLEAK  :=
endif
ALL_CFLAGS = $(WARN) -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Ilib $(CFLAGS) $(SANFLAGS) -MMD -MP
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS) $(SANLINK)
LIBS     := -lpthread

LIB_SRCS := $(sort $(wildcard lib/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIBA     := $(BUILD)/lib/libextkit.a

TOOLS    := mkfs debugfs replay fsck
mkfs_LIBS := -lblkid -luuid
# the prompt: libedit (BSD licence, so the MIT tools stay MIT when linked)
debugfs_LIBS := -ledit
# replay mount: libfuse3 (LGPL, linked dynamically) when pkg-config finds it;
# without it the tool still builds and `mount` says what is missing
FUSE_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null)
FUSE_LIBS   := $(shell pkg-config --libs fuse3 2>/dev/null)
ifneq ($(FUSE_LIBS),)
replay_LIBS := $(FUSE_LIBS)
$(BUILD)/replay/cmd_mount.o: ALL_CFLAGS += $(FUSE_CFLAGS) -DEK_HAVE_FUSE=1
endif
# the plain build puts each tool in its folder; SANITIZE=1 builds under build-san/
ifeq ($(SANITIZE),1)
BINDIR_OF = $(BUILD)/$(1)
else
BINDIR_OF = $(1)
endif
define tool_rules
$(1)_SRCS := $$(sort $$(wildcard $(1)/*.c))
$(1)_OBJS := $$($(1)_SRCS:%.c=$$(BUILD)/%.o)
$(call BINDIR_OF,$(1))/extkit-$(1): $$($(1)_OBJS) $$(SANLEAK) $$(LIBA)
	$$(CC) $$(ALL_LDFLAGS) -o $$@ $$^ $$($(1)_LIBS) $$(LIBS)
endef
BINS     := $(foreach t,$(TOOLS),$(call BINDIR_OF,$(t))/extkit-$(t))

.PHONY: all check unit imgtest e2diff fuzz fuzz-seeds demo install clean sparse deps
all: deps $(LIBA) $(BINS)
$(foreach t,$(TOOLS),$(eval $(call tool_rules,$(t))))
# replay mount: rebuilt when libfuse3 comes or goes
FUSE_STAMP := $(BUILD)/replay/fuse-$(if $(FUSE_LIBS),on,off).stamp
$(BUILD)/replay/cmd_mount.o: $(FUSE_STAMP)
$(FUSE_STAMP):
	@mkdir -p $(dir $@)
	@rm -f $(BUILD)/replay/fuse-*.stamp
	@touch $@

UNIT_SRCS := $(sort $(wildcard tests/unit/check_*.c))
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)

FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))

# installs missing build dependencies (or prints the apt-get line)
deps:
	@scripts/install-deps --check-only >/dev/null 2>&1 || scripts/install-deps

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIBA): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/tests/unit/%: tests/unit/%.c tests/unit/unit.h $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -Itests/unit -o $@ $< $(LIBA) $(ALL_LDFLAGS) $(CHECK_LIBS) $(LIBS)

# fuzz targets built with a replay main() for `make check`
$(BUILD)/tests/fuzz/%: tests/fuzz/%.c tests/fuzz/replay_main.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< tests/fuzz/replay_main.c $(LIBA) $(ALL_LDFLAGS) $(LIBS)

FUZZ_REPLAY := $(FUZZ_SRCS:%.c=$(BUILD)/%)

# the differential test against libext2fs (tests/diff): only this test
# program links libext2fs, never a tool.  theirs.c alone includes its headers.
E2DIFF   := $(BUILD)/tests/diff/e2diff
E2FS_CFLAGS = $(shell pkg-config --cflags ext2fs com_err 2>/dev/null)
E2FS_LIBS   = $(shell pkg-config --libs ext2fs com_err 2>/dev/null || echo -lext2fs -lcom_err)
$(BUILD)/tests/diff/theirs.o: tests/diff/theirs.c tests/diff/e2diff.h
	@mkdir -p $(dir $@)
	@test -f /usr/include/ext2fs/ext2fs.h || pkg-config --exists ext2fs || { \
	  echo "tests/diff/theirs.c needs libext2fs's headers: install libext2fs-dev" \
	       "(scripts/install-deps does)" >&2; exit 1; }
	$(CC) $(ALL_CFLAGS) $(E2FS_CFLAGS) -c -o $@ $<
$(E2DIFF): $(BUILD)/tests/diff/e2diff.o $(BUILD)/tests/diff/theirs.o $(SANLEAK) $(LIBA)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(E2FS_LIBS) $(LIBS)

check: all $(UNIT_BINS) $(FUZZ_REPLAY) $(E2DIFF)
	@mandoc -T lint -W warning man/*.8 && echo "man pages: lint clean"
	@tests/run-unit.sh $(UNIT_BINS)
	@tests/run-fuzz-seeds.sh $(FUZZ_REPLAY)
	@EK_DEBUGFS=$(abspath $(call BINDIR_OF,debugfs))/extkit-debugfs EK_REPLAY=$(abspath $(call BINDIR_OF,replay))/extkit-replay EK_E2DIFF=$(abspath $(E2DIFF)) tests/run-img.sh

unit: all $(UNIT_BINS)
	@tests/run-unit.sh $(UNIT_BINS)

imgtest: all $(E2DIFF)
	@EK_DEBUGFS=$(abspath $(call BINDIR_OF,debugfs))/extkit-debugfs EK_REPLAY=$(abspath $(call BINDIR_OF,replay))/extkit-replay EK_E2DIFF=$(abspath $(E2DIFF)) tests/run-img.sh

e2diff: all $(E2DIFF)

fuzz: $(LIB_SRCS)
	@mkdir -p build-fuzz
	for f in $(FUZZ_SRCS); do \
	  clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Ilib \
	    -o build-fuzz/$$(basename $$f .c) $$f $(LIB_SRCS) -lpthread || exit 1; \
	done

demo: all
	@scripts/demo.sh

sparse:
	sparse -D__CHECKER__ -D_GNU_SOURCE -Ilib $(LIB_SRCS)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR)/extkit \
		$(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(BINS) $(DESTDIR)$(BINDIR)
	install -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)
	install -m 644 lib/extkit.h lib/ondisk.h lib/jbd2_ondisk.h lib/endian.h lib/problems.def $(DESTDIR)$(INCDIR)/extkit
	install -m 644 $(foreach t,$(TOOLS),man/extkit-$(t).8) $(DESTDIR)$(MANDIR)/man8
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
	    -e 's|@VERSION@|$(shell sed -n 's/^#define EK_VERSION "\(.*\)"/\1/p' lib/extkit.h)|' \
	    extkit.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/extkit.pc

clean:
	rm -rf build build-san build-fuzz $(foreach t,$(TOOLS),$(t)/extkit-$(t))

-include $(shell find build build-san -name '*.d' 2>/dev/null)
