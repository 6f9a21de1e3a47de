/*
 * tc-pkg: a jam's relocatable object (ELF, libelf) -> injectable blob.
 *
 * A small static linker for one object: it lays the allocated sections out
 * as [GOT slots][pad16][.text*][.rodata*][.data*][.bss*], keeping each
 * section's alignment relative to image offset 0, and resolves every
 * relocation at build time. What is left for the receiver is what lib/codec/blob.h
 * describes: GOT slots (one per undefined symbol reached through the GOT,
 * named) and base fixups (64-bit absolute pointers in data).
 *
 * A GOT reference to a symbol the jam itself defines needs no slot: like ld,
 * the instruction is relaxed here to a PC-relative one (x86-64 mov -> lea,
 * call/jmp *GOT -> direct; aarch64 ldr literal -> adr). A form that cannot be
 * relaxed is an error (make the symbol static or hidden). Nothing is left to
 * rewrite in an instruction at run time.
 *
 * Symbols whose meaning needs a dynamic linker are refused before any
 * relocation: ifuncs (target_clones too), weak definitions and weak
 * undefined references.
 */
#include "tc_pkg.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TC_PKG_MAX_ALIGN 64u

typedef enum {
    TC_SEC_SKIP = 0,   /* not loaded: debug info, notes, symbol tables, unwind */
    TC_SEC_TEXT,
    TC_SEC_RODATA,
    TC_SEC_DATA,
    TC_SEC_BSS,
    TC_SEC_BAD         /* allocated but not injectable: reported with its reason */
} tc_pkg_sec_class_t;

typedef struct tc_pkg_sec {
    const char *name;
    const char *shown;    /* what messages call it: .text, not .text.tc_jam_run_x */
    GElf_Shdr   shdr;
    int         cls;      /* tc_pkg_sec_class_t */
    const char *why;      /* TC_SEC_BAD: the reason and the fix */
    uint32_t    off;      /* image offset (loaded classes) */
} tc_pkg_sec_t;

typedef struct tc_pkg_obj {
    const char      *jam;
    const char      *path;
    uint32_t         arch;
    Elf             *elf;
    size_t           shnum;
    size_t           shstrndx;
    tc_pkg_sec_t    *secs;
    Elf_Data        *symtab;
    size_t           nsyms;
    size_t           strndx;     /* string table of the symbol table */
    int32_t         *sym_slot;   /* per symbol: its GOT slot, or -1 */
    uint32_t         n_slots;
    size_t          *slot_sym;   /* per slot: its symbol */
    tc_blob_fixup_t *fixups;
    uint32_t         n_fixups;
    uint32_t         cap_fixups;
    uint8_t         *image;
    uint32_t         image_size;
    uint32_t         code_offset;
    uint32_t         bss_offset; /* where the first non-empty .bss starts: the rest is zero */
    uint32_t         writable;   /* bytes of loaded SHF_WRITE and .bss* sections, but
                                  * not .data.rel.ro* (the manifest's writable) */
    uint8_t         *reached;    /* per section: the run entry reaches it (tc_pkg_keep_reached) */
    int              reached_grew;
} tc_pkg_obj_t;

/* A relocation's symbol, resolved. */
typedef struct tc_pkg_sym {
    const char *name;
    GElf_Sym    sym;
    int         defined;   /* in a loaded section: off is valid */
    uint32_t    off;       /* image offset of the symbol */
} tc_pkg_sym_t;

/* One relocation being applied. */
typedef struct tc_pkg_rel {
    const tc_pkg_sec_t *sec;     /* the section patched */
    uint64_t            r_off;   /* offset in that section */
    uint32_t            type;
    int64_t             addend;
    size_t              symidx;
    tc_pkg_sym_t        s;
    uint32_t            p;       /* image offset of the place */
} tc_pkg_rel_t;

static const char *const tc_pkg_fix_tls =
    "thread-local storage cannot be injected; keep state in a ried";
static const char *const tc_pkg_fix_large =
    "the large code model cannot be injected; build jams with the default "
    "(small) code model, without -mcmodel=large";
static const char *const tc_pkg_fix_tiny =
    "page-relative (ADRP) addressing ties the code to its address modulo 4096; "
    "compile with -mcmodel=tiny";
static const char *const tc_pkg_fix_undef =
    "a non-GOT reference to an undefined symbol cannot be resolved at build time; "
    "compile with -fPIC -fno-plt and do not declare the symbol hidden, so the "
    "reference goes through the GOT";
static const char *const tc_pkg_fix_abs =
    "an absolute address in code would have to be rewritten at run time; "
    "compile with -fPIC";
static const char *const tc_pkg_fix_ifunc =
    "is an ifunc (target_clones or __attribute__((ifunc))); injected code cannot "
    "call a resolver: drop the attribute";
static const char *const tc_pkg_fix_irelative =
    "an IRELATIVE relocation runs an ifunc resolver (target_clones or "
    "__attribute__((ifunc))); injected code cannot call a resolver: drop the "
    "attribute";
static const char *const tc_pkg_fix_weak_def =
    "is a weak definition; a blob is linked alone, so it would keep this "
    "definition where the Local Function library may bind another: drop "
    "__attribute__((weak)) (or #pragma weak), or make the symbol static";
static const char *const tc_pkg_fix_weak_undef =
    "is a weak undefined reference; every GOT slot must resolve at namespace "
    "sync, so an injected jam cannot test for a missing symbol: drop the weak "
    "attribute (and the NULL test), or ask a ried whether it is there";
static const char *const tc_pkg_fix_common =
    "a common symbol (an uninitialised global under -fcommon) has no place in "
    "the image; initialise it, make it static or compile with -fno-common "
    "(state that outlives a frame belongs in a ried)";

/* ------------------------------------------------------------ diagnostics */

static const char *tc_pkg_rel_name(uint32_t arch, uint32_t type, char *buf, size_t len)
{
#define TC_PKG_R(_r) case _r: return #_r
    if (arch == TC_BLOB_ARCH_X86_64) {
        switch (type) {
        TC_PKG_R(R_X86_64_NONE); TC_PKG_R(R_X86_64_64); TC_PKG_R(R_X86_64_PC32);
        TC_PKG_R(R_X86_64_GOT32); TC_PKG_R(R_X86_64_PLT32); TC_PKG_R(R_X86_64_GOTPCREL);
        TC_PKG_R(R_X86_64_32); TC_PKG_R(R_X86_64_32S); TC_PKG_R(R_X86_64_16);
        TC_PKG_R(R_X86_64_PC16); TC_PKG_R(R_X86_64_8); TC_PKG_R(R_X86_64_PC8);
        TC_PKG_R(R_X86_64_DTPMOD64); TC_PKG_R(R_X86_64_DTPOFF64);
        TC_PKG_R(R_X86_64_TPOFF64); TC_PKG_R(R_X86_64_TLSGD); TC_PKG_R(R_X86_64_TLSLD);
        TC_PKG_R(R_X86_64_DTPOFF32); TC_PKG_R(R_X86_64_GOTTPOFF);
        TC_PKG_R(R_X86_64_TPOFF32); TC_PKG_R(R_X86_64_PC64); TC_PKG_R(R_X86_64_GOTOFF64);
        TC_PKG_R(R_X86_64_GOTPC32); TC_PKG_R(R_X86_64_GOT64);
        TC_PKG_R(R_X86_64_GOTPCREL64); TC_PKG_R(R_X86_64_GOTPC64);
        TC_PKG_R(R_X86_64_GOTPLT64); TC_PKG_R(R_X86_64_PLTOFF64);
        TC_PKG_R(R_X86_64_SIZE32); TC_PKG_R(R_X86_64_SIZE64);
        TC_PKG_R(R_X86_64_GOTPC32_TLSDESC); TC_PKG_R(R_X86_64_TLSDESC_CALL);
        TC_PKG_R(R_X86_64_TLSDESC); TC_PKG_R(R_X86_64_GOTPCRELX);
        TC_PKG_R(R_X86_64_REX_GOTPCRELX); TC_PKG_R(R_X86_64_IRELATIVE);
        default: break;
        }
    } else {
        switch (type) {
        TC_PKG_R(R_AARCH64_NONE); TC_PKG_R(R_AARCH64_ABS64); TC_PKG_R(R_AARCH64_ABS32);
        TC_PKG_R(R_AARCH64_ABS16); TC_PKG_R(R_AARCH64_PREL64);
        TC_PKG_R(R_AARCH64_PREL32); TC_PKG_R(R_AARCH64_PREL16);
        TC_PKG_R(R_AARCH64_MOVW_UABS_G0); TC_PKG_R(R_AARCH64_MOVW_UABS_G0_NC);
        TC_PKG_R(R_AARCH64_MOVW_UABS_G1); TC_PKG_R(R_AARCH64_MOVW_UABS_G1_NC);
        TC_PKG_R(R_AARCH64_MOVW_UABS_G2); TC_PKG_R(R_AARCH64_MOVW_UABS_G2_NC);
        TC_PKG_R(R_AARCH64_MOVW_UABS_G3); TC_PKG_R(R_AARCH64_LD_PREL_LO19);
        TC_PKG_R(R_AARCH64_ADR_PREL_LO21); TC_PKG_R(R_AARCH64_ADR_PREL_PG_HI21);
        TC_PKG_R(R_AARCH64_ADR_PREL_PG_HI21_NC); TC_PKG_R(R_AARCH64_ADD_ABS_LO12_NC);
        TC_PKG_R(R_AARCH64_LDST8_ABS_LO12_NC); TC_PKG_R(R_AARCH64_TSTBR14);
        TC_PKG_R(R_AARCH64_CONDBR19); TC_PKG_R(R_AARCH64_JUMP26);
        TC_PKG_R(R_AARCH64_CALL26); TC_PKG_R(R_AARCH64_LDST16_ABS_LO12_NC);
        TC_PKG_R(R_AARCH64_LDST32_ABS_LO12_NC); TC_PKG_R(R_AARCH64_LDST64_ABS_LO12_NC);
        TC_PKG_R(R_AARCH64_LDST128_ABS_LO12_NC); TC_PKG_R(R_AARCH64_GOT_LD_PREL19);
        TC_PKG_R(R_AARCH64_ADR_GOT_PAGE); TC_PKG_R(R_AARCH64_LD64_GOT_LO12_NC);
        TC_PKG_R(R_AARCH64_LD64_GOTPAGE_LO15); TC_PKG_R(R_AARCH64_GOTREL64);
        TC_PKG_R(R_AARCH64_GOTREL32); TC_PKG_R(R_AARCH64_TLSGD_ADR_PAGE21);
        TC_PKG_R(R_AARCH64_TLSGD_ADD_LO12_NC); TC_PKG_R(R_AARCH64_TLSDESC_ADR_PAGE21);
        TC_PKG_R(R_AARCH64_TLSDESC_LD64_LO12); TC_PKG_R(R_AARCH64_TLSDESC_ADD_LO12);
        TC_PKG_R(R_AARCH64_TLSDESC_CALL); TC_PKG_R(R_AARCH64_TLSLE_ADD_TPREL_HI12);
        TC_PKG_R(R_AARCH64_TLSLE_ADD_TPREL_LO12_NC);
        TC_PKG_R(R_AARCH64_TLSIE_ADR_GOTTPREL_PAGE21);
        TC_PKG_R(R_AARCH64_TLSIE_LD64_GOTTPREL_LO12_NC); TC_PKG_R(R_AARCH64_IRELATIVE);
        default: break;
        }
    }
#undef TC_PKG_R
    snprintf(buf, len, "relocation type %u", type);
    return buf;
}

static int         tc_pkg_is_label(const char *name);
static const char *tc_pkg_symbol_at(const tc_pkg_obj_t *obj, size_t shndx, uint64_t value);

/* The name a message gives a relocation's symbol: a section symbol or a
 * label (aarch64 addresses data through .LANCHOR0 + offset) is replaced by
 * the symbol at that section and offset. x86-64 PC-relative addends carry
 * the -4 of the displacement's end, so offset + 4 is tried first there. */
static const char *tc_pkg_rel_sym_name(const tc_pkg_obj_t *obj, const tc_pkg_rel_t *r)
{
    uint64_t off = r->s.sym.st_value + (uint64_t)r->addend;
    const char *name = NULL;
    int pcrel;

    if (((GELF_ST_TYPE(r->s.sym.st_info) != STT_SECTION) && !tc_pkg_is_label(r->s.name)) ||
        (r->s.sym.st_shndx == SHN_UNDEF) || (r->s.sym.st_shndx >= obj->shnum)) {
        return r->s.name;
    }
    pcrel = (obj->arch == TC_BLOB_ARCH_X86_64) &&
            ((r->type == R_X86_64_PC32) || (r->type == R_X86_64_PLT32) ||
             (r->type == R_X86_64_GOTPCREL) || (r->type == R_X86_64_GOTPCRELX) ||
             (r->type == R_X86_64_REX_GOTPCRELX) || (r->type == R_X86_64_GOTTPOFF) ||
             (r->type == R_X86_64_TLSGD) || (r->type == R_X86_64_TLSLD) ||
             (r->type == R_X86_64_GOTPC32_TLSDESC));
    if (pcrel) {
        name = tc_pkg_symbol_at(obj, r->s.sym.st_shndx, off + 4);
    }
    if (name == NULL) {
        name = tc_pkg_symbol_at(obj, r->s.sym.st_shndx, off);
    }
    return (name != NULL) ? name : r->s.name;
}

static tc_status_t tc_pkg_rel_fail(const tc_pkg_obj_t *obj, const tc_pkg_rel_t *r,
                                   const char *why)
{
    char buf[32];

    tc_pkg_err("jam '%s': %s: relocation %s against '%s': %s", obj->jam, r->sec->shown,
               tc_pkg_rel_name(obj->arch, r->type, buf, sizeof(buf)),
               tc_pkg_rel_sym_name(obj, r), why);
    return TC_ERR_UNSUPPORTED;
}

/* ------------------------------------------------------------ byte access */

static uint32_t tc_pkg_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static void tc_pkg_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void tc_pkg_put64(uint8_t *p, uint64_t v)
{
    tc_pkg_put32(p, (uint32_t)v);
    tc_pkg_put32(p + 4, (uint32_t)(v >> 32));
}

static int tc_pkg_fits_signed(int64_t v, unsigned bits)
{
    return (v >= -((int64_t)1 << (bits - 1))) && (v < ((int64_t)1 << (bits - 1)));
}

/* ------------------------------------------------------------ sections */

static int tc_pkg_name_is(const char *name, const char *base)
{
    size_t n = strlen(base);

    /* ".text" and ".text.*", not ".textfoo" */
    return (strncmp(name, base, n) == 0) && ((name[n] == '\0') || (name[n] == '.'));
}

static void tc_pkg_classify(tc_pkg_obj_t *obj, tc_pkg_sec_t *sec)
{
    const GElf_Shdr *sh = &sec->shdr;

    sec->cls = TC_SEC_SKIP;
    if (!(sh->sh_flags & SHF_ALLOC) || (sh->sh_type == SHT_NOTE) ||
        (sh->sh_type == SHT_GROUP)) {
        return;
    }
    /* Unwind tables: nobody unwinds through an injected jam. Dropped rather
     * than rejected, since some targets emit them by default. */
    if ((strcmp(sec->name, ".eh_frame") == 0) ||
        ((obj->arch == TC_BLOB_ARCH_X86_64) && (sh->sh_type == SHT_X86_64_UNWIND))) {
        return;
    }
    sec->cls = TC_SEC_BAD;
    if (sh->sh_flags & SHF_TLS) {
        sec->why = tc_pkg_fix_tls;
    } else if ((sh->sh_type == SHT_INIT_ARRAY) || (sh->sh_type == SHT_FINI_ARRAY) ||
               (sh->sh_type == SHT_PREINIT_ARRAY) || tc_pkg_name_is(sec->name, ".ctors") ||
               tc_pkg_name_is(sec->name, ".dtors")) {
        sec->why = "constructors and destructors never run for an injected jam; "
                   "do set-up in a ried's init";
    } else if (sh->sh_type == SHT_NOBITS) {
        if (tc_pkg_name_is(sec->name, ".bss")) {
            sec->cls = TC_SEC_BSS;
        } else {
            sec->why = "zero-initialised data must be in .bss*";
        }
    } else if (sh->sh_type != SHT_PROGBITS) {
        sec->why = "section type not injectable; code goes in .text*, data in "
                   ".rodata*, .data*, .bss*";
    } else if (tc_pkg_name_is(sec->name, ".text")) {
        sec->cls = TC_SEC_TEXT;
    } else if (tc_pkg_name_is(sec->name, ".rodata")) {
        sec->cls = TC_SEC_RODATA;
    } else if (tc_pkg_name_is(sec->name, ".data")) {
        /* .data, .data.rel.ro*, .data.rel.local* */
        sec->cls = TC_SEC_DATA;
    } else {
        sec->why = "only .text*, .rodata*, .data* and .bss* are injected; drop the "
                   "section attribute";
    }
}

/* Local labels (.LANCHOR0, .LC0) and aarch64 mapping symbols ($x, $d) name
 * no C object: messages name what the user wrote instead. */
static int tc_pkg_is_label(const char *name)
{
    return (name[0] == '$') || (strncmp(name, ".L", 2) == 0);
}

/* The named symbol at offset value of section shndx, or the one whose
 * extent holds it (for messages); NULL if none. */
static const char *tc_pkg_symbol_at(const tc_pkg_obj_t *obj, size_t shndx, uint64_t value)
{
    const char *name, *holder = NULL;
    GElf_Sym sym;
    size_t i;

    for (i = 1; i < obj->nsyms; ++i) {
        if ((gelf_getsym(obj->symtab, (int)i, &sym) == NULL) || (sym.st_shndx != shndx) ||
            (GELF_ST_TYPE(sym.st_info) == STT_SECTION) ||
            ((name = elf_strptr(obj->elf, obj->strndx, sym.st_name)) == NULL) ||
            (name[0] == '\0') || tc_pkg_is_label(name)) {
            continue;
        }
        if (sym.st_value == value) {
            return name;
        }
        if ((holder == NULL) && (sym.st_value < value) && (value - sym.st_value < sym.st_size)) {
            holder = name;
        }
    }
    return holder;
}

/* A symbol to name a section by in a message: one it defines, else one its
 * first relocation points at (an .init_array holds only pointers). */
static const char *tc_pkg_sec_symbol(const tc_pkg_obj_t *obj, size_t shndx)
{
    const char *name;
    Elf_Data *data;
    GElf_Rela rela;
    GElf_Sym sym;
    size_t i;

    for (i = 1; i < obj->nsyms; ++i) {
        if ((gelf_getsym(obj->symtab, (int)i, &sym) != NULL) && (sym.st_shndx == shndx) &&
            (GELF_ST_TYPE(sym.st_info) != STT_SECTION) && (sym.st_name != 0) &&
            ((name = elf_strptr(obj->elf, obj->strndx, sym.st_name)) != NULL) &&
            (name[0] != '.') && !tc_pkg_is_label(name)) {
            return name;
        }
    }
    for (i = 1; i < obj->shnum; ++i) {
        if ((obj->secs[i].shdr.sh_type != SHT_RELA) || (obj->secs[i].shdr.sh_info != shndx)) {
            continue;
        }
        data = elf_getdata(elf_getscn(obj->elf, i), NULL);
        if ((data == NULL) || (gelf_getrela(data, 0, &rela) == NULL) ||
            (gelf_getsym(obj->symtab, (int)GELF_R_SYM(rela.r_info), &sym) == NULL)) {
            break;
        }
        name = elf_strptr(obj->elf, obj->strndx, sym.st_name);
        if ((GELF_ST_TYPE(sym.st_info) == STT_SECTION) || (name == NULL) ||
            tc_pkg_is_label(name)) {
            name = tc_pkg_symbol_at(obj, sym.st_shndx, sym.st_value + (uint64_t)rela.r_addend);
        }
        return ((name != NULL) && (name[0] != '\0')) ? name : "(none)";
    }
    return "(none)";
}

/* -ffunction-sections and -fdata-sections name a symbol's section after it
 * (.text.tc_jam_run_x, .tbss.counter): messages name the kind, as the user
 * wrote it, and the symbol beside it. */
static const char *tc_pkg_sec_shown(const tc_pkg_obj_t *obj, size_t shndx)
{
    static const char *const bases[] = {
        ".data.rel.ro.local", ".data.rel.ro", ".data.rel.local", ".data.rel", ".text",
        ".rodata", ".data", ".bss", ".tbss", ".tdata"
    };
    const char *name = obj->secs[shndx].name, *sym_name;
    size_t b, n, i;
    GElf_Sym sym;

    for (b = 0; b < TC_ARRAY_SIZE(bases); ++b) {
        n = strlen(bases[b]);
        if ((strncmp(name, bases[b], n) != 0) || (name[n] != '.')) {
            continue;
        }
        for (i = 1; i < obj->nsyms; ++i) {
            if ((gelf_getsym(obj->symtab, (int)i, &sym) == NULL) || (sym.st_shndx != shndx)) {
                continue;
            }
            sym_name = elf_strptr(obj->elf, obj->strndx, sym.st_name);
            if ((sym_name != NULL) && (strcmp(sym_name, name + n + 1) == 0)) {
                return bases[b];
            }
        }
        break; /* the longest base that matches decides */
    }
    return name;
}

static tc_status_t tc_pkg_read_sections(tc_pkg_obj_t *obj)
{
    tc_pkg_sec_t *sec;
    Elf_Scn *scn;
    size_t i;

    obj->secs = calloc(obj->shnum, sizeof(*obj->secs));
    if (obj->secs == NULL) {
        tc_pkg_err("out of memory");
        return TC_ERR_NO_MEMORY;
    }
    for (i = 1; i < obj->shnum; ++i) {
        sec = &obj->secs[i];
        scn = elf_getscn(obj->elf, i);
        if ((scn == NULL) || (gelf_getshdr(scn, &sec->shdr) == NULL)) {
            tc_pkg_err("jam '%s': %s: section %zu: %s", obj->jam, obj->path, i,
                       elf_errmsg(-1));
            return TC_ERR_PROTOCOL;
        }
        sec->name = elf_strptr(obj->elf, obj->shstrndx, sec->shdr.sh_name);
        if (sec->name == NULL) {
            sec->name = "(unnamed)";
        }
        if (sec->shdr.sh_type == SHT_SYMTAB) {
            if (obj->symtab != NULL) {
                tc_pkg_err("jam '%s': %s: more than one symbol table", obj->jam, obj->path);
                return TC_ERR_PROTOCOL;
            }
            obj->symtab = elf_getdata(scn, NULL);
            obj->strndx = sec->shdr.sh_link;
            obj->nsyms  = (sec->shdr.sh_entsize == 0) ? 0
                          : sec->shdr.sh_size / sec->shdr.sh_entsize;
        }
        tc_pkg_classify(obj, sec);
    }
    if ((obj->symtab == NULL) || (obj->nsyms == 0)) {
        tc_pkg_err("jam '%s': %s has no symbol table", obj->jam, obj->path);
        return TC_ERR_PROTOCOL;
    }
    for (i = 1; i < obj->shnum; ++i) {
        obj->secs[i].shown = tc_pkg_sec_shown(obj, i);
    }
    return TC_OK;
}

/* Offsets of every loaded section: [GOT][pad16][text][rodata][data][bss]. */
static tc_status_t tc_pkg_layout(tc_pkg_obj_t *obj)
{
    static const int order[] = {TC_SEC_TEXT, TC_SEC_RODATA, TC_SEC_DATA, TC_SEC_BSS};
    uint64_t off, align;
    tc_pkg_sec_t *sec;
    Elf_Data *data;
    size_t c, i;

    off = obj->code_offset = TC_ALIGN_UP(8u * obj->n_slots, 16u);
    obj->bss_offset        = UINT32_MAX; /* none yet */
    for (c = 0; c < TC_ARRAY_SIZE(order); ++c) {
        for (i = 1; i < obj->shnum; ++i) {
            sec = &obj->secs[i];
            if (sec->cls != order[c]) {
                continue;
            }
            align = (sec->shdr.sh_addralign == 0) ? 1 : sec->shdr.sh_addralign;
            if ((align > TC_PKG_MAX_ALIGN) || ((align & (align - 1)) != 0)) {
                tc_pkg_err("jam '%s': %s: symbol '%s': alignment %llu: at most %u-byte "
                           "alignment is injectable; lower the aligned() attribute",
                           obj->jam, sec->shown, tc_pkg_sec_symbol(obj, i),
                           (unsigned long long)align, TC_PKG_MAX_ALIGN);
                return TC_ERR_UNSUPPORTED;
            }
            off      = TC_ALIGN_UP(off, align);
            sec->off = (uint32_t)off;
            off     += sec->shdr.sh_size;
            /* .bss starts at its first byte, not at the padding before it
             * (the blob's bss_size > 0 then means the jam has .bss) */
            if ((order[c] == TC_SEC_BSS) && (sec->shdr.sh_size > 0) &&
                (obj->bss_offset == UINT32_MAX)) {
                obj->bss_offset = sec->off;
            }
            /* .data.rel.ro* is written only by the receiver's base fixups;
             * .bss* is zeroed data, writable whatever its flags say */
            if (((sec->shdr.sh_flags & SHF_WRITE) || (order[c] == TC_SEC_BSS)) &&
                !tc_pkg_name_is(sec->name, ".data.rel.ro")) {
                obj->writable += (uint32_t)sec->shdr.sh_size;
            }
            if (off > TC_BLOB_MAX_IMAGE) {
                tc_pkg_err("jam '%s': %s: symbol '%s': the image passes %u bytes (a "
                           "frame's code length is 16 bits); make the jam smaller or "
                           "move data into a ried", obj->jam, sec->shown,
                           tc_pkg_sec_symbol(obj, i), TC_BLOB_MAX_IMAGE);
                return TC_ERR_OUT_OF_RANGE;
            }
        }
    }
    obj->image_size = (uint32_t)off;
    if (obj->bss_offset == UINT32_MAX) {
        obj->bss_offset = obj->image_size;
    }

    obj->image = calloc(1, obj->image_size + 1);
    if (obj->image == NULL) {
        tc_pkg_err("out of memory");
        return TC_ERR_NO_MEMORY;
    }
    for (i = 1; i < obj->shnum; ++i) {
        sec = &obj->secs[i];
        if ((sec->cls == TC_SEC_SKIP) || (sec->cls == TC_SEC_BAD) ||
            (sec->cls == TC_SEC_BSS) || (sec->shdr.sh_size == 0)) {
            continue;
        }
        data = elf_getdata(elf_getscn(obj->elf, i), NULL);
        if ((data == NULL) || (data->d_buf == NULL) || (data->d_size != sec->shdr.sh_size)) {
            tc_pkg_err("jam '%s': %s: cannot read section %s", obj->jam, obj->path,
                       sec->name);
            return TC_ERR_PROTOCOL;
        }
        memcpy(obj->image + sec->off, data->d_buf, data->d_size);
    }
    return TC_OK;
}

/* -------------------------------------------------------------- symbols */

static tc_status_t tc_pkg_symbol(const tc_pkg_obj_t *obj, size_t idx, tc_pkg_sym_t *s_p)
{
    const tc_pkg_sec_t *sec;
    tc_pkg_sym_t s = {0};

    if ((idx >= obj->nsyms) || (gelf_getsym(obj->symtab, (int)idx, &s.sym) == NULL)) {
        tc_pkg_err("jam '%s': %s: bad symbol index %zu", obj->jam, obj->path, idx);
        return TC_ERR_PROTOCOL;
    }
    if (GELF_ST_TYPE(s.sym.st_info) == STT_SECTION) {
        s.name = (s.sym.st_shndx < obj->shnum) ? obj->secs[s.sym.st_shndx].shown : "?";
    } else {
        s.name = elf_strptr(obj->elf, obj->strndx, s.sym.st_name);
    }
    if (s.name == NULL) {
        s.name = "";
    }
    if ((s.sym.st_shndx != SHN_UNDEF) && (s.sym.st_shndx < SHN_LORESERVE) &&
        (s.sym.st_shndx < obj->shnum)) {
        sec = &obj->secs[s.sym.st_shndx];
        if ((sec->cls != TC_SEC_SKIP) && (sec->cls != TC_SEC_BAD)) {
            s.defined = 1;
            s.off     = sec->off + (uint32_t)s.sym.st_value;
        }
    }
    *s_p = s;
    return TC_OK;
}

static tc_status_t tc_pkg_add_slot(tc_pkg_obj_t *obj, size_t symidx)
{
    if (obj->sym_slot[symidx] >= 0) {
        return TC_OK;
    }
    if (obj->n_slots == TC_BLOB_MAX_SLOTS) {
        tc_pkg_err("jam '%s': more than %u GOT slots", obj->jam, TC_BLOB_MAX_SLOTS);
        return TC_ERR_OUT_OF_RANGE;
    }
    obj->sym_slot[symidx]         = (int32_t)obj->n_slots;
    obj->slot_sym[obj->n_slots++] = symidx;
    return TC_OK;
}

static tc_status_t tc_pkg_add_fixup(tc_pkg_obj_t *obj, uint32_t offset, int64_t addend)
{
    tc_blob_fixup_t *grown;
    uint32_t cap;

    if (obj->n_fixups == obj->cap_fixups) {
        cap   = (obj->cap_fixups == 0) ? 16 : 2 * obj->cap_fixups;
        grown = realloc(obj->fixups, cap * sizeof(*grown));
        if (grown == NULL) {
            tc_pkg_err("out of memory");
            return TC_ERR_NO_MEMORY;
        }
        obj->fixups     = grown;
        obj->cap_fixups = cap;
    }
    obj->fixups[obj->n_fixups].offset   = offset;
    obj->fixups[obj->n_fixups].reserved = 0;
    obj->fixups[obj->n_fixups].addend   = addend;
    obj->n_fixups++;
    return TC_OK;
}

static int tc_pkg_is_got_type(uint32_t arch, uint32_t type)
{
    if (arch == TC_BLOB_ARCH_X86_64) {
        return (type == R_X86_64_GOTPCREL) || (type == R_X86_64_GOTPCRELX) ||
               (type == R_X86_64_REX_GOTPCRELX);
    }
    return type == R_AARCH64_GOT_LD_PREL19;
}

/* --------------------------------------------------- relocation kinds */

/* Does the place hold width bytes inside its section? */
static int tc_pkg_rel_width_ok(const tc_pkg_obj_t *obj, const tc_pkg_rel_t *r,
                               unsigned width)
{
    if ((r->r_off <= r->sec->shdr.sh_size) && (r->sec->shdr.sh_size - r->r_off >= width)) {
        return 1;
    }
    tc_pkg_rel_fail(obj, r, "the place runs past the end of its section (corrupt object)");
    return 0;
}

/* A 64-bit absolute pointer: a base fixup, in data only. */
static tc_status_t tc_pkg_rel_abs64(tc_pkg_obj_t *obj, const tc_pkg_rel_t *r)
{
    int64_t target;

    if (!r->s.defined) {
        return tc_pkg_rel_fail(obj, r,
                               "a data word holding the address of an undefined symbol "
                               "would need linking at run time; take the address in "
                               "code (it then goes through the GOT) or keep the table "
                               "in a ried");
    }
    if ((r->sec->cls != TC_SEC_RODATA) && (r->sec->cls != TC_SEC_DATA)) {
        return tc_pkg_rel_fail(obj, r, tc_pkg_fix_abs);
    }
    if ((r->p % 8) != 0) {
        return tc_pkg_rel_fail(obj, r, "a pointer at an address not 8-byte aligned; "
                                       "remove the packed attribute");
    }
    target = (int64_t)r->s.off + r->addend;
    if ((target < 0) || (target > obj->image_size)) {
        return tc_pkg_rel_fail(obj, r, "a pointer outside the jam's image");
    }
    tc_pkg_put64(obj->image + r->p, 0);
    return tc_pkg_add_fixup(obj, r->p, target);
}

/* S + A - P into a data word of width bytes. */
static tc_status_t tc_pkg_rel_prel_data(tc_pkg_obj_t *obj, const tc_pkg_rel_t *r,
                                        unsigned width)
{
    int64_t v = (int64_t)r->s.off + r->addend - (int64_t)r->p;

    if (!r->s.defined) {
        return tc_pkg_rel_fail(obj, r, tc_pkg_fix_undef);
    }
    if ((width < 8) && !tc_pkg_fits_signed(v, 8 * width)) {
        return tc_pkg_rel_fail(obj, r, "PC-relative value out of range");
    }
    if (width == 8) {
        tc_pkg_put64(obj->image + r->p, (uint64_t)v);
    } else if (width == 4) {
        tc_pkg_put32(obj->image + r->p, (uint32_t)v);
    } else {
        obj->image[r->p]     = (uint8_t)v;
        obj->image[r->p + 1] = (uint8_t)((uint64_t)v >> 8);
    }
    return TC_OK;
}

/* -------------------------------------------------------------- x86-64 */

/* GOT load of a symbol the jam defines: relax the instruction like ld does. */
static tc_status_t tc_pkg_x86_relax(tc_pkg_obj_t *obj, const tc_pkg_rel_t *r)
{
    uint8_t *insn = obj->image + r->p;
    int64_t v;

    if ((r->type == R_X86_64_GOTPCREL) || (r->r_off < 2) || (r->sec->cls != TC_SEC_TEXT)) {
        goto fail;
    }
    if ((insn[-2] == 0x8b) && ((insn[-1] & 0xc7) == 0x05)) {
        insn[-2] = 0x8d;                       /* mov sym@GOTPCREL(%rip) -> lea sym(%rip) */
        v        = (int64_t)r->s.off + r->addend - (int64_t)r->p;
    } else if ((r->type == R_X86_64_GOTPCRELX) && (insn[-2] == 0xff) && (insn[-1] == 0x15)) {
        insn[-2] = 0x67;                       /* call *GOT -> addr32 call sym */
        insn[-1] = 0xe8;
        v        = (int64_t)r->s.off + r->addend - (int64_t)r->p;
    } else if ((r->type == R_X86_64_GOTPCRELX) && (insn[-2] == 0xff) && (insn[-1] == 0x25)) {
        insn[-2] = 0xe9;                       /* jmp *GOT -> jmp sym; nop */
        insn[3]  = 0x90;
        v        = (int64_t)r->s.off + r->addend - ((int64_t)r->p - 1);
        insn    -= 1;
    } else {
        goto fail;
    }
    if (!tc_pkg_fits_signed(v, 32)) {
        return tc_pkg_rel_fail(obj, r, "PC-relative value out of range");
    }
    tc_pkg_put32(insn, (uint32_t)v);
    return TC_OK;

fail:
    return tc_pkg_rel_fail(obj, r, "a GOT reference to a symbol the jam defines, in a "
                                   "form that cannot be made PC-relative; make the "
                                   "symbol static or hidden");
}

static tc_status_t tc_pkg_x86_apply(tc_pkg_obj_t *obj, const tc_pkg_rel_t *r)
{
    int64_t v;

    switch (r->type) {
    case R_X86_64_NONE:
        return TC_OK;
    case R_X86_64_64:
        return tc_pkg_rel_width_ok(obj, r, 8) ? tc_pkg_rel_abs64(obj, r) : TC_ERR_PROTOCOL;
    case R_X86_64_PC64:
        return tc_pkg_rel_width_ok(obj, r, 8) ? tc_pkg_rel_prel_data(obj, r, 8)
                                         : TC_ERR_PROTOCOL;
    case R_X86_64_PC32:
    case R_X86_64_PLT32:
        return tc_pkg_rel_width_ok(obj, r, 4) ? tc_pkg_rel_prel_data(obj, r, 4)
                                         : TC_ERR_PROTOCOL;
    case R_X86_64_GOTPCREL:
    case R_X86_64_GOTPCRELX:
    case R_X86_64_REX_GOTPCRELX:
        if (!tc_pkg_rel_width_ok(obj, r, 4)) {
            return TC_ERR_PROTOCOL;
        }
        if (r->s.defined) {
            return tc_pkg_x86_relax(obj, r);
        }
        v = 8 * (int64_t)obj->sym_slot[r->symidx] + r->addend - (int64_t)r->p;
        if (!tc_pkg_fits_signed(v, 32)) {
            return tc_pkg_rel_fail(obj, r, "PC-relative value out of range");
        }
        tc_pkg_put32(obj->image + r->p, (uint32_t)v);
        return TC_OK;
    case R_X86_64_DTPMOD64:
    case R_X86_64_DTPOFF64:
    case R_X86_64_TPOFF64:
    case R_X86_64_TLSGD:
    case R_X86_64_TLSLD:
    case R_X86_64_DTPOFF32:
    case R_X86_64_GOTTPOFF:
    case R_X86_64_TPOFF32:
    case R_X86_64_GOTPC32_TLSDESC:
    case R_X86_64_TLSDESC_CALL:
    case R_X86_64_TLSDESC:
        return tc_pkg_rel_fail(obj, r, tc_pkg_fix_tls);
    case R_X86_64_GOTOFF64:
    case R_X86_64_GOT64:
    case R_X86_64_GOTPCREL64:
    case R_X86_64_GOTPC64:
    case R_X86_64_GOTPLT64:
    case R_X86_64_PLTOFF64:
        return tc_pkg_rel_fail(obj, r, tc_pkg_fix_large);
    case R_X86_64_32:
    case R_X86_64_32S:
    case R_X86_64_16:
    case R_X86_64_8:
        return tc_pkg_rel_fail(obj, r, tc_pkg_fix_abs);
    case R_X86_64_IRELATIVE:
        return tc_pkg_rel_fail(obj, r, tc_pkg_fix_irelative);
    default:
        return tc_pkg_rel_fail(obj, r, "relocation type not supported in an injected "
                                       "jam; rewrite the construct, or move it into a "
                                       "ried");
    }
}

/* ------------------------------------------------------------- aarch64 */

/* Branch/literal offset v (bytes, a multiple of 4) into an imm field of
 * bits bits at bit shift of the instruction. */
static tc_status_t tc_pkg_a64_imm(tc_pkg_obj_t *obj, const tc_pkg_rel_t *r, int64_t v,
                                  unsigned bits, unsigned shift)
{
    uint32_t mask = ((1u << bits) - 1) << shift;
    uint8_t *insn = obj->image + r->p;

    if (((v & 3) != 0) || !tc_pkg_fits_signed(v >> 2, bits)) {
        return tc_pkg_rel_fail(obj, r, "branch or literal offset out of range");
    }
    tc_pkg_put32(insn, (tc_pkg_get32(insn) & ~mask) |
                       (((uint32_t)(v >> 2) << shift) & mask));
    return TC_OK;
}

static tc_status_t tc_pkg_a64_adr(tc_pkg_obj_t *obj, const tc_pkg_rel_t *r, int64_t v)
{
    const uint32_t mask = (3u << 29) | (0x7ffffu << 5);
    uint8_t *insn       = obj->image + r->p;
    uint32_t imm;

    if (!tc_pkg_fits_signed(v, 21)) {
        return tc_pkg_rel_fail(obj, r, "ADR offset out of range (+-1 MiB)");
    }
    imm = (((uint32_t)v & 3u) << 29) | ((((uint32_t)(v >> 2)) & 0x7ffffu) << 5);
    tc_pkg_put32(insn, (tc_pkg_get32(insn) & ~mask) | imm);
    return TC_OK;
}

static tc_status_t tc_pkg_a64_apply(tc_pkg_obj_t *obj, const tc_pkg_rel_t *r)
{
    int64_t v = (int64_t)r->s.off + r->addend - (int64_t)r->p;
    uint32_t insn;

    switch (r->type) {
    case R_AARCH64_NONE:
    case 256: /* R_AARCH64_NONE's other number (withdrawn ABI) */
        return TC_OK;
    case R_AARCH64_ABS64:
        return tc_pkg_rel_width_ok(obj, r, 8) ? tc_pkg_rel_abs64(obj, r) : TC_ERR_PROTOCOL;
    case R_AARCH64_PREL64:
        return tc_pkg_rel_width_ok(obj, r, 8) ? tc_pkg_rel_prel_data(obj, r, 8)
                                              : TC_ERR_PROTOCOL;
    case R_AARCH64_PREL32:
        return tc_pkg_rel_width_ok(obj, r, 4) ? tc_pkg_rel_prel_data(obj, r, 4)
                                              : TC_ERR_PROTOCOL;
    case R_AARCH64_PREL16:
        return tc_pkg_rel_width_ok(obj, r, 2) ? tc_pkg_rel_prel_data(obj, r, 2)
                                              : TC_ERR_PROTOCOL;
    case R_AARCH64_IRELATIVE:
        return tc_pkg_rel_fail(obj, r, tc_pkg_fix_irelative);
    default:
        break;
    }

    /* The rest patch one instruction. */
    switch (r->type) {
    case R_AARCH64_CALL26:
    case R_AARCH64_JUMP26:
    case R_AARCH64_CONDBR19:
    case R_AARCH64_TSTBR14:
    case R_AARCH64_LD_PREL_LO19:
    case R_AARCH64_ADR_PREL_LO21:
    case R_AARCH64_GOT_LD_PREL19:
        if (!tc_pkg_rel_width_ok(obj, r, 4)) {
            return TC_ERR_PROTOCOL;
        }
        if ((r->sec->cls != TC_SEC_TEXT) || ((r->p % 4) != 0)) {
            return tc_pkg_rel_fail(obj, r, "an instruction relocation outside aligned "
                                           "code (corrupt object)");
        }
        if (!r->s.defined && (r->type != R_AARCH64_GOT_LD_PREL19)) {
            return tc_pkg_rel_fail(obj, r,
                                   ((r->type == R_AARCH64_CALL26) ||
                                    (r->type == R_AARCH64_JUMP26))
                                       ? "a direct call to an undefined function cannot "
                                         "be linked at build time; compile with -fno-plt "
                                         "so the call goes through the GOT"
                                       : tc_pkg_fix_undef);
        }
        break;
    default:
        break;
    }

    switch (r->type) {
    case R_AARCH64_CALL26:
    case R_AARCH64_JUMP26:
        return tc_pkg_a64_imm(obj, r, v, 26, 0);
    case R_AARCH64_CONDBR19:
    case R_AARCH64_LD_PREL_LO19:
        return tc_pkg_a64_imm(obj, r, v, 19, 5);
    case R_AARCH64_TSTBR14:
        return tc_pkg_a64_imm(obj, r, v, 14, 5);
    case R_AARCH64_ADR_PREL_LO21:
        return tc_pkg_a64_adr(obj, r, v);
    case R_AARCH64_GOT_LD_PREL19:
        if (!r->s.defined) {
            v = 8 * (int64_t)obj->sym_slot[r->symidx] + r->addend - (int64_t)r->p;
            return tc_pkg_a64_imm(obj, r, v, 19, 5);
        }
        /* ldr xN, <slot> -> adr xN, sym: the jam defines what it loads */
        insn = tc_pkg_get32(obj->image + r->p);
        if ((insn & 0xff000000u) != 0x58000000u) {
            return tc_pkg_rel_fail(obj, r, "a GOT reference to a symbol the jam defines, "
                                           "in a form that cannot be made PC-relative; "
                                           "make the symbol static or hidden");
        }
        tc_pkg_put32(obj->image + r->p, 0x10000000u | (insn & 0x1fu));
        return tc_pkg_a64_adr(obj, r, v);
    case R_AARCH64_ADR_PREL_PG_HI21:
    case R_AARCH64_ADR_PREL_PG_HI21_NC:
    case R_AARCH64_ADD_ABS_LO12_NC:
    case R_AARCH64_LDST8_ABS_LO12_NC:
    case R_AARCH64_LDST16_ABS_LO12_NC:
    case R_AARCH64_LDST32_ABS_LO12_NC:
    case R_AARCH64_LDST64_ABS_LO12_NC:
    case R_AARCH64_LDST128_ABS_LO12_NC:
    case R_AARCH64_ADR_GOT_PAGE:
    case R_AARCH64_LD64_GOT_LO12_NC:
    case R_AARCH64_LD64_GOTPAGE_LO15:
        return tc_pkg_rel_fail(obj, r, tc_pkg_fix_tiny);
    case R_AARCH64_ABS32:
    case R_AARCH64_ABS16:
    case R_AARCH64_MOVW_UABS_G0:
    case R_AARCH64_MOVW_UABS_G0_NC:
    case R_AARCH64_MOVW_UABS_G1:
    case R_AARCH64_MOVW_UABS_G1_NC:
    case R_AARCH64_MOVW_UABS_G2:
    case R_AARCH64_MOVW_UABS_G2_NC:
    case R_AARCH64_MOVW_UABS_G3:
    case R_AARCH64_MOVW_SABS_G0:
    case R_AARCH64_MOVW_SABS_G1:
    case R_AARCH64_MOVW_SABS_G2:
        return tc_pkg_rel_fail(obj, r, "an absolute address in code (large code model?) "
                                       "would have to be rewritten at run time; compile "
                                       "with -fPIC -mcmodel=tiny");
    default:
        if ((r->type >= 512) && (r->type < 1024)) {
            return tc_pkg_rel_fail(obj, r, tc_pkg_fix_tls);
        }
        if ((r->type >= R_AARCH64_MOVW_GOTOFF_G0) && (r->type <= R_AARCH64_GOTREL32)) {
            return tc_pkg_rel_fail(obj, r, tc_pkg_fix_large);
        }
        return tc_pkg_rel_fail(obj, r, "relocation type not supported in an injected "
                                       "jam; rewrite the construct, or move it into a "
                                       "ried");
    }
}

/* -------------------------------------------------------------- driver */

/* Calls fn for every RELA entry that patches a loaded section. */
static tc_status_t tc_pkg_for_each_rel(tc_pkg_obj_t *obj,
                                       tc_status_t (*fn)(tc_pkg_obj_t *obj,
                                                         tc_pkg_rel_t *r))
{
    const tc_pkg_sec_t *rsec, *target;
    tc_pkg_rel_t r;
    tc_status_t status;
    Elf_Data *data;
    GElf_Rela rela;
    size_t i, n;

    for (i = 1; i < obj->shnum; ++i) {
        rsec = &obj->secs[i];
        if ((rsec->shdr.sh_type != SHT_RELA) && (rsec->shdr.sh_type != SHT_REL)) {
            continue;
        }
        if ((rsec->shdr.sh_info == 0) || (rsec->shdr.sh_info >= obj->shnum)) {
            continue;
        }
        target = &obj->secs[rsec->shdr.sh_info];
        if ((target->cls == TC_SEC_SKIP) || (target->cls == TC_SEC_BAD)) {
            continue; /* debug info, unwind tables; bad sections are reported later */
        }
        if (rsec->shdr.sh_type == SHT_REL) {
            tc_pkg_err("jam '%s': %s: REL relocations (no addend) are not supported; "
                       "use a toolchain that writes RELA", obj->jam, target->name);
            return TC_ERR_UNSUPPORTED;
        }
        data = elf_getdata(elf_getscn(obj->elf, i), NULL);
        n    = (rsec->shdr.sh_entsize == 0) ? 0 : rsec->shdr.sh_size / rsec->shdr.sh_entsize;
        for (size_t k = 0; k < n; ++k) {
            if ((data == NULL) || (gelf_getrela(data, (int)k, &rela) == NULL)) {
                tc_pkg_err("jam '%s': %s: cannot read %s: %s", obj->jam, obj->path,
                           rsec->name, elf_errmsg(-1));
                return TC_ERR_PROTOCOL;
            }
            memset(&r, 0, sizeof(r));
            r.sec    = target;
            r.r_off  = rela.r_offset;
            r.type   = (uint32_t)GELF_R_TYPE(rela.r_info);
            r.addend = rela.r_addend;
            r.symidx = GELF_R_SYM(rela.r_info);
            r.p      = target->off + (uint32_t)rela.r_offset;
            status   = tc_pkg_symbol(obj, r.symidx, &r.s);
            if (status == TC_OK) {
                status = fn(obj, &r);
            }
            if (status != TC_OK) {
                return status;
            }
        }
    }
    return TC_OK;
}

/* Pass 1: one GOT slot per undefined symbol reached through the GOT. */
static tc_status_t tc_pkg_collect_slot(tc_pkg_obj_t *obj, tc_pkg_rel_t *r)
{
    if (tc_pkg_is_got_type(obj->arch, r->type) && (r->s.sym.st_shndx == SHN_UNDEF)) {
        if (r->s.name[0] == '\0') {
            return tc_pkg_rel_fail(obj, r, "a GOT reference to a nameless symbol");
        }
        if (strlen(r->s.name) > TC_BLOB_NAME_MAX) {
            return tc_pkg_rel_fail(obj, r, "symbol name longer than 255 bytes");
        }
        return tc_pkg_add_slot(obj, r->symidx);
    }
    return TC_OK;
}

/* Pass 2: resolve. Symbols that are neither undefined nor in a loaded
 * section get their own message before the per-arch code sees them. */
static tc_status_t tc_pkg_apply(tc_pkg_obj_t *obj, tc_pkg_rel_t *r)
{
    uint16_t shndx = r->s.sym.st_shndx;
    char why[256];

    if (r->type == 0) {
        return TC_OK;
    }
    if (shndx == SHN_COMMON) {
        return tc_pkg_rel_fail(obj, r, tc_pkg_fix_common);
    }
    if (!r->s.defined && (shndx != SHN_UNDEF)) {
        if (shndx == SHN_ABS) {
            return tc_pkg_rel_fail(obj, r, "an absolute symbol cannot be placed; define "
                                           "it in the jam or a ried");
        }
        if ((shndx < obj->shnum) && (obj->secs[shndx].cls == TC_SEC_BAD)) {
            const char *with = tc_pkg_sec_symbol(obj, shndx);
            if (strcmp(with, tc_pkg_rel_sym_name(obj, r)) == 0) {
                snprintf(why, sizeof(why), "it lives in %s: %s", obj->secs[shndx].shown,
                         obj->secs[shndx].why);
            } else {
                snprintf(why, sizeof(why), "it lives in %s (with '%s'): %s",
                         obj->secs[shndx].shown, with, obj->secs[shndx].why);
            }
            return tc_pkg_rel_fail(obj, r, why);
        }
        snprintf(why, sizeof(why), "it lives in %s, which is not injected",
                 (shndx < obj->shnum) ? obj->secs[shndx].shown : "a special section");
        return tc_pkg_rel_fail(obj, r, why);
    }
    if ((GELF_ST_TYPE(r->s.sym.st_info) == STT_TLS)) {
        return tc_pkg_rel_fail(obj, r, tc_pkg_fix_tls);
    }
    return (obj->arch == TC_BLOB_ARCH_X86_64) ? tc_pkg_x86_apply(obj, r)
                                             : tc_pkg_a64_apply(obj, r);
}

/* An LTO object holds the compiler's intermediate code (.gnu.lto_*
 * sections), which becomes machine code only at the final link: there is
 * nothing to cut a blob from (gcc's slim objects look like one COMMON
 * symbol, __gnu_lto_slim). Said for what it is, before anything else. */
static tc_status_t tc_pkg_check_lto(const tc_pkg_obj_t *obj)
{
    size_t i;

    for (i = 1; i < obj->shnum; ++i) {
        if ((strncmp(obj->secs[i].name, ".gnu.lto_", 9) == 0) ||
            (strncmp(obj->secs[i].name, ".llvm.lto", 9) == 0)) {
            tc_pkg_err("jam '%s': the object is LTO intermediate code (section %s, from "
                       "-flto), not machine code, so there is nothing to make a blob of: "
                       "drop -flto from --cflags and --cc", obj->jam, obj->secs[i].name);
            return TC_ERR_UNSUPPORTED;
        }
    }
    return TC_OK;
}

/* Symbols a blob cannot honour: an ifunc (a call or its address would
 * reach the resolver, not the function), a weak definition (the blob keeps
 * it where the Local Function library may bind another), a weak undefined
 * reference (a slot that may stay empty). Every one is reported. */
static tc_status_t tc_pkg_check_symbols(const tc_pkg_obj_t *obj)
{
    tc_status_t status = TC_OK;
    const char *name, *why;
    GElf_Sym sym;
    size_t i;

    for (i = 1; i < obj->nsyms; ++i) {
        if (gelf_getsym(obj->symtab, (int)i, &sym) == NULL) {
            tc_pkg_err("jam '%s': %s: bad symbol %zu: %s", obj->jam, obj->path, i,
                       elf_errmsg(-1));
            return TC_ERR_PROTOCOL;
        }
        if (GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC) {
            why = tc_pkg_fix_ifunc;
        } else if (GELF_ST_BIND(sym.st_info) != STB_WEAK) {
            continue;
        } else if (sym.st_shndx == SHN_UNDEF) {
            why = tc_pkg_fix_weak_undef;
        } else {
            why = tc_pkg_fix_weak_def;
        }
        name = elf_strptr(obj->elf, obj->strndx, sym.st_name);
        tc_pkg_err("jam '%s': symbol '%s' %s", obj->jam,
                   ((name != NULL) && (name[0] != '\0')) ? name : "(unnamed)", why);
        status = TC_ERR_UNSUPPORTED;
    }
    return status;
}

/* Sections that cannot be injected, and common symbols nothing referenced. */
static tc_status_t tc_pkg_check_leftovers(const tc_pkg_obj_t *obj)
{
    const tc_pkg_sec_t *sec;
    const char *name;
    GElf_Sym sym;
    size_t i;

    for (i = 1; i < obj->shnum; ++i) {
        sec = &obj->secs[i];
        if (sec->cls == TC_SEC_BAD) {
            tc_pkg_err("jam '%s': %s: symbol '%s': %s", obj->jam, sec->shown,
                       tc_pkg_sec_symbol(obj, i), sec->why);
            return TC_ERR_UNSUPPORTED;
        }
    }
    for (i = 1; i < obj->nsyms; ++i) {
        if ((gelf_getsym(obj->symtab, (int)i, &sym) != NULL) &&
            (sym.st_shndx == SHN_COMMON)) {
            name = elf_strptr(obj->elf, obj->strndx, sym.st_name);
            tc_pkg_err("jam '%s': COMMON: symbol '%s': %s", obj->jam,
                       (name != NULL) ? name : "?", tc_pkg_fix_common);
            return TC_ERR_UNSUPPORTED;
        }
    }
    return TC_OK;
}

/* The index of the symbol prefix + the jam's name, a function in .text*;
 * 0 (logged) if the jam does not define it there. */
static size_t tc_pkg_find_fn(const tc_pkg_obj_t *obj, const char *prefix, GElf_Sym *sym_p)
{
    char want[TC_MANIFEST_NAME_MAX + 32];
    const char *name;
    size_t i;

    snprintf(want, sizeof(want), "%s%s", prefix, obj->jam);
    for (i = 1; i < obj->nsyms; ++i) {
        if (gelf_getsym(obj->symtab, (int)i, sym_p) == NULL) {
            continue;
        }
        name = elf_strptr(obj->elf, obj->strndx, sym_p->st_name);
        if ((name == NULL) || (strcmp(name, want) != 0)) {
            continue;
        }
        if ((sym_p->st_shndx == SHN_UNDEF) || (sym_p->st_shndx >= obj->shnum) ||
            (obj->secs[sym_p->st_shndx].cls != TC_SEC_TEXT)) {
            break;
        }
        return i;
    }
    tc_pkg_err("jam '%s': .text: symbol '%s' is not defined in the jam's code; define "
               "it with %s", obj->jam, want,
               (strcmp(prefix, "tc_jam_run_") == 0) ? "TC_JAM_RUN" : "TC_JAM_PACK");
    return 0;
}

/* Image offset of the run entry (after the layout). */
static tc_status_t tc_pkg_entry(const tc_pkg_obj_t *obj, uint32_t *off_p)
{
    GElf_Sym sym;

    if (tc_pkg_find_fn(obj, "tc_jam_run_", &sym) == 0) {
        return TC_ERR_NOT_FOUND;
    }
    *off_p = obj->secs[sym.st_shndx].off + (uint32_t)sym.st_value;
    return TC_OK;
}

/* tc_pkg_keep_reached's pass: a relocation in a reached section reaches
 * the section its symbol lives in. */
static tc_status_t tc_pkg_mark_reached(tc_pkg_obj_t *obj, tc_pkg_rel_t *r)
{
    size_t to = r->s.sym.st_shndx;

    if (obj->reached[r->sec - obj->secs] && (to != SHN_UNDEF) && (to < SHN_LORESERVE) &&
        (to < obj->shnum) && !obj->reached[to]) {
        obj->reached[to]  = 1;
        obj->reached_grew = 1;
    }
    return TC_OK;
}

/* The image holds what the run entry reaches and nothing else: the
 * sections a chain of relocations leads to from the entry's (jams are
 * compiled with -ffunction-sections -fdata-sections, so a function or an
 * object is a section). The pack routine is the sender's, called from the
 * Local Function library, so it and whatever only it uses (its memcpy GOT
 * slot) stay out of every injected frame: server_sum's frame with a 64 B
 * payload is 640 bytes, not 704. Only code and data nothing reaches are
 * dropped: a section injection refuses (TLS, constructors) is still
 * refused, reached or not, so a jam's two forms cannot differ by it. */
static tc_status_t tc_pkg_keep_reached(tc_pkg_obj_t *obj)
{
    GElf_Sym sym;
    tc_status_t status = TC_OK;
    size_t i;

    if ((tc_pkg_find_fn(obj, "tc_jam_pack_", &sym) == 0) ||
        (tc_pkg_find_fn(obj, "tc_jam_run_", &sym) == 0)) {
        return TC_ERR_NOT_FOUND;
    }
    obj->reached = calloc(obj->shnum, 1);
    if (obj->reached == NULL) {
        tc_pkg_err("out of memory");
        return TC_ERR_NO_MEMORY;
    }
    obj->reached[sym.st_shndx] = 1;
    do { /* until a pass over the relocations reaches nothing new */
        obj->reached_grew = 0;
        status            = tc_pkg_for_each_rel(obj, tc_pkg_mark_reached);
    } while ((status == TC_OK) && obj->reached_grew);
    for (i = 1; (status == TC_OK) && (i < obj->shnum); ++i) {
        if ((obj->secs[i].cls != TC_SEC_SKIP) && (obj->secs[i].cls != TC_SEC_BAD) &&
            !obj->reached[i]) {
            obj->secs[i].cls = TC_SEC_SKIP;
        }
    }
    free(obj->reached);
    obj->reached = NULL;
    return status;
}

static const char *tc_pkg_slot_name(const tc_pkg_obj_t *obj, uint32_t slot)
{
    GElf_Sym sym;

    if (gelf_getsym(obj->symtab, (int)obj->slot_sym[slot], &sym) == NULL) {
        return NULL;
    }
    return elf_strptr(obj->elf, obj->strndx, sym.st_name);
}

static tc_status_t tc_pkg_write_blob(const tc_pkg_obj_t *obj, uint32_t entry,
                                     void **file_p, size_t *len_p)
{
    const size_t fixups_size = (size_t)obj->n_fixups * sizeof(tc_blob_fixup_t);
    tc_blob_file_hdr_t hdr;
    uint32_t names_size = 0, i;
    const char *name;
    tc_blob_t check;
    tc_status_t status;
    uint8_t *file, *p;
    size_t len, n;
    char why[256];

    for (i = 0; i < obj->n_slots; ++i) {
        name = tc_pkg_slot_name(obj, i);
        if (name == NULL) {
            tc_pkg_err("jam '%s': %s: bad symbol table", obj->jam, obj->path);
            return TC_ERR_PROTOCOL;
        }
        names_size += (uint32_t)strlen(name) + 1;
    }
    len  = sizeof(hdr) + names_size + fixups_size + obj->image_size;
    file = malloc(len);
    if (file == NULL) {
        tc_pkg_err("out of memory");
        return TC_ERR_NO_MEMORY;
    }

    p = file + sizeof(hdr);
    for (i = 0; i < obj->n_slots; ++i) {
        name = tc_pkg_slot_name(obj, i);
        n    = strlen(name) + 1;
        memcpy(p, name, n);
        p += n;
    }
    if (fixups_size > 0) {
        memcpy(p, obj->fixups, fixups_size);
    }
    p += fixups_size;
    memcpy(p, obj->image, obj->image_size);

    memset(&hdr, 0, sizeof(hdr));
    memcpy(hdr.magic, TC_BLOB_MAGIC, sizeof(hdr.magic));
    hdr.version      = TC_BLOB_VERSION;
    hdr.arch         = obj->arch;
    hdr.image_size   = obj->image_size;
    hdr.code_offset  = obj->code_offset;
    hdr.entry_offset = entry;
    hdr.got_count    = obj->n_slots;
    hdr.fixup_count  = obj->n_fixups;
    hdr.names_size   = names_size;
    hdr.bss_size     = obj->image_size - obj->bss_offset;
    hdr.content_hash = tc_blob_hash(p, obj->image_size,
                                    (const char *)(file + sizeof(hdr)), names_size,
                                    (const tc_blob_fixup_t *)(file + sizeof(hdr) +
                                                              names_size),
                                    obj->n_fixups);
    memcpy(file, &hdr, sizeof(hdr));

    /* What the runtime will check, checked here first. */
    status = tc_blob_parse_err(file, len, why, sizeof(why), &check);
    if (status != TC_OK) {
        tc_pkg_err("jam '%s': the blob fails its own check (%s): a layout tc-pkg "
                   "does not handle", obj->jam, why);
        free(file);
        return TC_ERR_PROTOCOL;
    }
    *file_p = file;
    *len_p  = len;
    return TC_OK;
}

static tc_status_t tc_pkg_open_obj(tc_pkg_obj_t *obj, int fd)
{
    size_t raw_len = 0;
    GElf_Ehdr ehdr;
    char *raw;

    if (elf_version(EV_CURRENT) == EV_NONE) {
        tc_pkg_err("libelf: %s", elf_errmsg(-1));
        return TC_ERR_UNSUPPORTED;
    }
    obj->elf = elf_begin(fd, ELF_C_READ, NULL);
    raw      = (obj->elf != NULL) ? elf_rawfile(obj->elf, &raw_len) : NULL;
    if ((raw != NULL) && (raw_len >= 4) && (memcmp(raw, "BC\xc0\xde", 4) == 0)) {
        tc_pkg_err("jam '%s': %s is LLVM bitcode (from -flto), not machine code, so "
                   "there is nothing to make a blob of: drop -flto from --cflags and "
                   "--cc", obj->jam, obj->path);
        return TC_ERR_UNSUPPORTED;
    }
    if ((obj->elf == NULL) || (elf_kind(obj->elf) != ELF_K_ELF) ||
        (gelf_getehdr(obj->elf, &ehdr) == NULL)) {
        tc_pkg_err("jam '%s': %s is not an ELF object", obj->jam, obj->path);
        return TC_ERR_PROTOCOL;
    }
    if ((gelf_getclass(obj->elf) != ELFCLASS64) || (ehdr.e_type != ET_REL) ||
        (ehdr.e_ident[EI_DATA] != ELFDATA2LSB)) {
        tc_pkg_err("jam '%s': %s is not a 64-bit little-endian relocatable object",
                   obj->jam, obj->path);
        return TC_ERR_PROTOCOL;
    }
    if (ehdr.e_machine != obj->arch) {
        tc_pkg_err("jam '%s': %s is for ELF machine %u, not %s (%u): wrong compiler "
                   "for --arch?", obj->jam, obj->path, ehdr.e_machine,
                   tc_manifest_arch_name(obj->arch), obj->arch);
        return TC_ERR_PROTOCOL;
    }
    if ((elf_getshdrnum(obj->elf, &obj->shnum) != 0) ||
        (elf_getshdrstrndx(obj->elf, &obj->shstrndx) != 0)) {
        tc_pkg_err("jam '%s': %s: %s", obj->jam, obj->path, elf_errmsg(-1));
        return TC_ERR_PROTOCOL;
    }
    return TC_OK;
}

tc_status_t tc_pkg_blob_build(const char *jam, const char *obj_path, uint32_t arch,
                              void **file_p, size_t *len_p, uint32_t *writable_p)
{
    tc_pkg_obj_t obj = {.jam = jam, .path = obj_path, .arch = arch};
    uint32_t entry;
    tc_status_t status;
    size_t i;
    int fd;

    if (tc_manifest_arch_name(arch) == NULL) {
        tc_pkg_err("unknown arch %u", arch);
        return TC_ERR_INVALID_PARAM;
    }
    fd = open(obj_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        tc_pkg_err("jam '%s': cannot open %s", jam, obj_path);
        return TC_ERR_IO;
    }
    status = tc_pkg_open_obj(&obj, fd);
    if (status != TC_OK) {
        goto out;
    }
    status = tc_pkg_read_sections(&obj);
    if (status != TC_OK) {
        goto out;
    }
    status = tc_pkg_check_lto(&obj);
    if (status != TC_OK) {
        goto out;
    }
    status = tc_pkg_check_symbols(&obj);
    if (status != TC_OK) {
        goto out;
    }
    status = tc_pkg_keep_reached(&obj);
    if (status != TC_OK) {
        goto out;
    }

    obj.sym_slot = malloc(obj.nsyms * sizeof(*obj.sym_slot));
    obj.slot_sym = malloc(obj.nsyms * sizeof(*obj.slot_sym));
    if ((obj.sym_slot == NULL) || (obj.slot_sym == NULL)) {
        tc_pkg_err("out of memory");
        status = TC_ERR_NO_MEMORY;
        goto out;
    }
    for (i = 0; i < obj.nsyms; ++i) {
        obj.sym_slot[i] = -1;
    }

    status = tc_pkg_for_each_rel(&obj, tc_pkg_collect_slot);
    if (status != TC_OK) {
        goto out;
    }
    status = tc_pkg_layout(&obj);
    if (status != TC_OK) {
        goto out;
    }
    status = tc_pkg_for_each_rel(&obj, tc_pkg_apply);
    if (status != TC_OK) {
        goto out;
    }
    status = tc_pkg_check_leftovers(&obj);
    if (status != TC_OK) {
        goto out;
    }
    status = tc_pkg_entry(&obj, &entry);
    if (status != TC_OK) {
        goto out;
    }
    status = tc_pkg_write_blob(&obj, entry, file_p, len_p);
    if (status == TC_OK) {
        *writable_p = obj.writable;
    }

out:
    free(obj.image);
    free(obj.fixups);
    free(obj.slot_sym);
    free(obj.sym_slot);
    free(obj.secs);
    if (obj.elf != NULL) {
        elf_end(obj.elf);
    }
    close(fd);
    return status;
}
