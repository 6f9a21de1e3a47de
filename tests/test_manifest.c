/*
 * Unit tests of the package manifest parser and writer (lib/codec/manifest.c):
 * a valid manifest parses into the right fields and writes back to the same
 * text; each malformation is rejected with its status and a message naming
 * the line. A blob's header against its element: each difference named.
 * A jam's describe lines (version 3): parsed, written back, and held to
 * their rules (printable, bounded, whole), version 2 still read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "manifest.h"
#include "blob.h"

#define TEST_HEAD \
    "twochains-package 2\n" \
    "name bench\n" \
    "id 0x1234abcd\n" \
    "arch x86_64\n" \
    "library libtc_bench.so\n"
#define TEST_JAM0 \
    "element 0 jam indirect_put blob jam_indirect_put.blob hash 0x0123456789abcdef " \
    "code 152 got 1 entry 16 writable 24\n"
#define TEST_JAM1 \
    "element 1 jam noop blob jam_noop.blob hash 0xFEDCBA9876543210 code 31 got 0 " \
    "entry 0 writable 0\n"
#define TEST_RIED2 "element 2 ried bench lib libried_bench.so\n"

static const char test_valid_text[] =
    "# a comment first\n"
    "\n"
    TEST_HEAD
    "   # an indented comment\n"
    TEST_JAM0
    TEST_JAM1
    "\t\n"
    TEST_RIED2;

/* Parse text (its strlen), expect status; on failure the message names
 * line and contains what. */
static void test_expect(const char *text, tc_status_t want, unsigned line,
                        const char *what)
{
    char err[256], prefix[32];
    tc_manifest_t *m = (tc_manifest_t *)(uintptr_t)0x1;
    tc_status_t status;

    status = tc_manifest_parse_err(text, strlen(text), err, sizeof(err), &m);
    if (status != want) {
        fail_msg("status %d (%s), expected %d, for:\n%s", status, err, want, text);
    }
    if (want == TC_OK) {
        tc_manifest_free(m);
        return;
    }
    assert_ptr_equal(m, (tc_manifest_t *)(uintptr_t)0x1); /* untouched on failure */
    snprintf(prefix, sizeof(prefix), "line %u: ", line);
    if ((strncmp(err, prefix, strlen(prefix)) != 0) || (strstr(err, what) == NULL)) {
        fail_msg("message '%s', expected '%s...%s'", err, prefix, what);
    }
}

static void test_valid(void **state)
{
    const tc_manifest_elem_t *e;
    tc_manifest_t *m;

    (void)state;
    assert_int_equal(tc_manifest_parse(test_valid_text, strlen(test_valid_text), &m),
                     TC_OK);
    assert_string_equal(m->name, "bench");
    assert_int_equal(m->id, 0x1234abcdu);
    assert_int_equal(m->arch, TC_BLOB_ARCH_X86_64);
    assert_string_equal(m->library, "libtc_bench.so");
    assert_int_equal(m->n_elements, 3);

    e = &m->elements[0];
    assert_int_equal(e->id, 0);
    assert_int_equal(e->kind, TC_ELEM_JAM);
    assert_string_equal(e->name, "indirect_put");
    assert_string_equal(e->file, "jam_indirect_put.blob");
    assert_true(e->hash == UINT64_C(0x0123456789abcdef));
    assert_int_equal(e->code_bytes, 152);
    assert_int_equal(e->got_slots, 1);
    assert_int_equal(e->entry_offset, 16);

    assert_int_equal(e->writable_bytes, 24);

    e = &m->elements[1];
    assert_true(e->hash == UINT64_C(0xfedcba9876543210));
    assert_int_equal(e->got_slots, 0);
    assert_int_equal(e->writable_bytes, 0);

    e = tc_manifest_find(m, "bench");
    assert_non_null(e);
    assert_int_equal(e->id, 2);
    assert_int_equal(e->kind, TC_ELEM_RIED);
    assert_string_equal(e->file, "libried_bench.so");
    assert_null(tc_manifest_find(m, "nope"));
    tc_manifest_free(m);
}

static void test_valid_variants(void **state)
{
    (void)state;
    /* no trailing newline, no elements, aarch64, tabs */
    test_expect(TEST_HEAD "element 0 ried r lib libried_r.so", TC_OK, 0, "");
    test_expect(TEST_HEAD, TC_OK, 0, "");
    test_expect("twochains-package\t2\nname\tp\nid\t0x00000000\narch aarch64\n"
                "library libtc_p.so\n", TC_OK, 0, "");
    /* header keys in any order */
    test_expect("twochains-package 2\nlibrary l.so\narch x86_64\nid 0x00000001\nname p\n",
                TC_OK, 0, "");
}

/* What tc_manifest_write writes, tc_manifest_parse reads back the same. */
static void test_roundtrip(void **state)
{
    tc_manifest_t *m, *m2;
    char *text = NULL;
    size_t len = 0;
    FILE *f;

    (void)state;
    assert_int_equal(tc_manifest_parse(test_valid_text, strlen(test_valid_text), &m),
                     TC_OK);
    f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(tc_manifest_write(m, f), TC_OK);
    fclose(f);
    assert_int_equal(tc_manifest_parse(text, len, &m2), TC_OK);
    assert_string_equal(m2->name, m->name);
    assert_int_equal(m2->id, m->id);
    assert_int_equal(m2->arch, m->arch);
    assert_int_equal(m2->n_elements, m->n_elements);
    assert_memory_equal(m2->elements, m->elements, m->n_elements * sizeof(*m->elements));
    assert_non_null(strstr(text, "element 0 jam indirect_put blob jam_indirect_put.blob "
                                 "hash 0x0123456789abcdef code 152 got 1 entry 16 "
                                 "writable 24\n"));
    assert_non_null(strstr(text, "\nid 0x1234abcd\n"));
    free(text);
    tc_manifest_free(m);
    tc_manifest_free(m2);
}

static void test_header_line(void **state)
{
    (void)state;
    test_expect("", TC_ERR_PROTOCOL, 0, "no 'twochains-package'");
    test_expect("# only a comment\n", TC_ERR_PROTOCOL, 1, "no 'twochains-package'");
    test_expect("name bench\n", TC_ERR_PROTOCOL, 1, "expected 'twochains-package 3'");
    test_expect("twochains-package\n", TC_ERR_PROTOCOL, 1, "expected");
    test_expect("twochains-package 2 2\n", TC_ERR_PROTOCOL, 1, "expected");
    /* version 1 had no writable field: not read as "writable 0" */
    test_expect("twochains-package 1\n", TC_ERR_VERSION_MISMATCH, 1,
                "version 1, this library reads 2 to 3 (rebuild");
    test_expect("twochains-package 4\n", TC_ERR_VERSION_MISMATCH, 1, "version 4");
    test_expect("twochains-package x\n", TC_ERR_PROTOCOL, 1, "bad manifest version");
    test_expect(TEST_HEAD "twochains-package 2\n", TC_ERR_PROTOCOL, 6, "twice");
}

/* ---------------------------------------------------------- describe lines */

#define TEST_HEAD3 \
    "twochains-package 3\n" \
    "name bench\n" \
    "id 0x1234abcd\n" \
    "arch x86_64\n" \
    "library libtc_bench.so\n"
#define TEST_DOC0 \
    "describe 0 what writes  ints | through an index table\n" \
    "describe 0 payload int32 values (a multiple of 4 bytes)\n" \
    "describe 0 result how many it put: ~`'\"\\ all printable\n"

static void test_describe(void **state)
{
    static const char text[] = TEST_HEAD3 TEST_JAM0 TEST_DOC0 TEST_JAM1 TEST_RIED2;
    tc_manifest_t *m, *m2;
    char *out = NULL, *saved;
    size_t len = 0;
    unsigned k;
    FILE *f;

    (void)state;
    assert_int_equal(tc_manifest_parse(text, strlen(text), &m), TC_OK);
    assert_string_equal(m->elements[0].doc[TC_MANIFEST_DOC_WHAT],
                        "writes  ints | through an index table");
    assert_string_equal(m->elements[0].doc[TC_MANIFEST_DOC_PAYLOAD],
                        "int32 values (a multiple of 4 bytes)");
    assert_string_equal(m->elements[0].doc[TC_MANIFEST_DOC_RESULT],
                        "how many it put: ~`'\"\\ all printable");
    for (k = 0; k < TC_MANIFEST_DOC_N; ++k) {
        assert_null(m->elements[1].doc[k]); /* noop: not described */
        assert_null(m->elements[2].doc[k]);
    }
    /* written back as read, and read back the same */
    f = open_memstream(&out, &len);
    assert_non_null(f);
    assert_int_equal(tc_manifest_write(m, f), TC_OK);
    fclose(f);
    assert_non_null(strstr(out, "twochains-package 3\n"));
    assert_non_null(strstr(out, "writable 24\n" TEST_DOC0 "element 1 "));
    assert_int_equal(tc_manifest_parse(out, len, &m2), TC_OK);
    for (k = 0; k < TC_MANIFEST_DOC_N; ++k) {
        assert_string_equal(m2->elements[0].doc[k], m->elements[0].doc[k]);
    }
    tc_manifest_free(m2);
    free(out);

    /* the writer writes nothing the parser would refuse */
    saved = m->elements[0].doc[TC_MANIFEST_DOC_RESULT];
    m->elements[0].doc[TC_MANIFEST_DOC_RESULT] = (char *)"tab\there";
    f = open_memstream(&out, &len);
    assert_non_null(f);
    assert_int_equal(tc_manifest_write(m, f), TC_ERR_INVALID_PARAM);
    fclose(f);
    free(out);
    m->elements[0].doc[TC_MANIFEST_DOC_RESULT] = NULL;
    f = open_memstream(&out, &len);
    assert_non_null(f);
    assert_int_equal(tc_manifest_write(m, f), TC_ERR_INVALID_PARAM); /* not whole */
    fclose(f);
    free(out);
    m->elements[0].doc[TC_MANIFEST_DOC_RESULT] = saved;
    tc_manifest_free(m);
}

static void test_describe_refused(void **state)
{
    char line[600], text[1024];
    size_t n;

    (void)state;
    /* version 2 had none: not taken as text of another kind */
    test_expect(TEST_HEAD TEST_JAM0 "describe 0 what x\n", TC_ERR_PROTOCOL, 7,
                "'describe' in a version 2 manifest");
    test_expect(TEST_HEAD3 "describe 0 what x\n" TEST_JAM0, TC_ERR_PROTOCOL, 6,
                "describe 0: no element 0 before it");
    test_expect(TEST_HEAD3 TEST_JAM0 "describe 1 what x\n", TC_ERR_PROTOCOL, 7,
                "no element 1 before it");
    test_expect(TEST_HEAD3 TEST_JAM0 TEST_JAM1 TEST_RIED2 "describe 2 what x\n",
                TC_ERR_PROTOCOL, 9, "element 2 is ried 'bench'; only jams are described");
    test_expect(TEST_HEAD3 TEST_JAM0 "describe 0 how x\n", TC_ERR_PROTOCOL, 7,
                "unknown key 'how' (what, payload or result)");
    test_expect(TEST_HEAD3 TEST_JAM0 "describe 0 what x\ndescribe 0 what y\n",
                TC_ERR_PROTOCOL, 8, "describe 0 what given twice");
    test_expect(TEST_HEAD3 TEST_JAM0 "describe x what y\n", TC_ERR_PROTOCOL, 7,
                "bad element id 'x'");
    test_expect(TEST_HEAD3 TEST_JAM0 "describe 0 what\n", TC_ERR_PROTOCOL, 7,
                "one space apart");
    test_expect(TEST_HEAD3 TEST_JAM0 "describe 0\twhat x\n", TC_ERR_PROTOCOL, 7,
                "one space apart");
    test_expect(TEST_HEAD3 TEST_JAM0 "  describe 0 what x\n", TC_ERR_PROTOCOL, 7,
                "from the line's start");
    /* the text: printable, one line, no space at either end, bounded */
    test_expect(TEST_HEAD3 TEST_JAM0 "describe 0 what a\tb\n", TC_ERR_PROTOCOL, 7,
                "describe 0 what: byte 0x09 at 1 is not printable ASCII");
    test_expect(TEST_HEAD3 TEST_JAM0 "describe 0 what a\r\n", TC_ERR_PROTOCOL, 7,
                "byte 0x0d at 1");
    test_expect(TEST_HEAD3 TEST_JAM0 "describe 0 what caf\xc3\xa9\n", TC_ERR_PROTOCOL, 7,
                "byte 0xc3 at 3");
    test_expect(TEST_HEAD3 TEST_JAM0 "describe 0 what \x1b[31mred\n", TC_ERR_PROTOCOL, 7,
                "byte 0x1b at 0");
    test_expect(TEST_HEAD3 TEST_JAM0 "describe 0 what x \n", TC_ERR_PROTOCOL, 7,
                "a space last");
    test_expect(TEST_HEAD3 TEST_JAM0 "describe 0 what  x\n", TC_ERR_PROTOCOL, 7,
                "a space first");
    test_expect(TEST_HEAD3 TEST_JAM0 "describe 0 what \n", TC_ERR_PROTOCOL, 7, "empty");
    for (n = TC_JAM_DOC_MAX - 1; n <= TC_JAM_DOC_MAX; ++n) {
        snprintf(line, sizeof(line), "describe 0 what %0*d\n", (int)n, 0);
        snprintf(text, sizeof(text), TEST_HEAD3 TEST_JAM0 "%s"
                 "describe 0 payload p\ndescribe 0 result r\n", line);
        if (n < TC_JAM_DOC_MAX) {
            test_expect(text, TC_OK, 0, "");
        } else {
            test_expect(text, TC_ERR_PROTOCOL, 7, "256 bytes, more than 255");
        }
    }
    /* all three or none */
    test_expect(TEST_HEAD3 TEST_JAM0 "describe 0 what w\ndescribe 0 payload p\n",
                TC_ERR_PROTOCOL, 8, "jam 'indirect_put' (element 0) is described without "
                "'describe 0 result'");
}

static void test_unknown_keyword(void **state)
{
    (void)state;
    test_expect(TEST_HEAD "version 3\n", TC_ERR_PROTOCOL, 6, "unknown keyword 'version'");
    test_expect(TEST_HEAD "Element 0 ried r lib l.so\n", TC_ERR_PROTOCOL, 6,
                "unknown keyword");
    /* a comment must start its line */
    test_expect(TEST_HEAD "element 0 ried r lib l.so # note\n", TC_ERR_PROTOCOL, 6,
                "fields");
}

static void test_missing_lines(void **state)
{
    (void)state;
    test_expect("twochains-package 2\nid 0x00000001\narch x86_64\nlibrary l.so\n",
                TC_ERR_PROTOCOL, 4, "no 'name'");
    test_expect("twochains-package 2\nname p\narch x86_64\nlibrary l.so\n",
                TC_ERR_PROTOCOL, 4, "no 'id'");
    test_expect("twochains-package 2\nname p\nid 0x00000001\nlibrary l.so\n",
                TC_ERR_PROTOCOL, 4, "no 'arch'");
    test_expect("twochains-package 2\nname p\nid 0x00000001\narch x86_64\n",
                TC_ERR_PROTOCOL, 4, "no 'library'");
    /* elements need the whole header first */
    test_expect("twochains-package 2\nname p\nid 0x00000001\narch x86_64\n"
                "element 0 ried r lib l.so\nlibrary l.so\n",
                TC_ERR_PROTOCOL, 5, "element before");
    test_expect(TEST_RIED2, TC_ERR_PROTOCOL, 1, "expected 'twochains-package");
}

static void test_header_values(void **state)
{
    (void)state;
    test_expect(TEST_HEAD "name other\n", TC_ERR_PROTOCOL, 6, "'name' given twice");
    test_expect(TEST_HEAD TEST_JAM0 "arch x86_64\n", TC_ERR_PROTOCOL, 7, "twice");
    test_expect("twochains-package 2\nname 9lives\n", TC_ERR_PROTOCOL, 2, "C identifier");
    test_expect("twochains-package 2\nname a-b\n", TC_ERR_PROTOCOL, 2, "C identifier");
    test_expect("twochains-package 2\nname\n", TC_ERR_PROTOCOL, 2, "one value");
    test_expect("twochains-package 2\nname a b\n", TC_ERR_PROTOCOL, 2, "one value");
    test_expect("twochains-package 2\nid 1234abcd\n", TC_ERR_PROTOCOL, 2, "package id");
    test_expect("twochains-package 2\nid 0x1234abc\n", TC_ERR_PROTOCOL, 2, "package id");
    test_expect("twochains-package 2\nid 0x1234abcde\n", TC_ERR_PROTOCOL, 2, "package id");
    test_expect("twochains-package 2\nid 0x1234abcg\n", TC_ERR_PROTOCOL, 2, "package id");
    test_expect("twochains-package 2\narch riscv64\n", TC_ERR_PROTOCOL, 2, "unknown arch");
    test_expect("twochains-package 2\nlibrary ../evil.so\n", TC_ERR_PROTOCOL, 2,
                "bad library");
    test_expect("twochains-package 2\nlibrary /lib/x.so\n", TC_ERR_PROTOCOL, 2,
                "bad library");
    test_expect("twochains-package 2\nlibrary .hidden\n", TC_ERR_PROTOCOL, 2,
                "bad library");
}

static void test_bad_numbers(void **state)
{
    (void)state;
    test_expect(TEST_HEAD "element x ried r lib l.so\n", TC_ERR_PROTOCOL, 6,
                "bad element id");
    test_expect(TEST_HEAD "element -0 ried r lib l.so\n", TC_ERR_PROTOCOL, 6,
                "bad element id");
    test_expect(TEST_HEAD "element 00 ried r lib l.so\n", TC_ERR_PROTOCOL, 6,
                "bad element id");
    test_expect(TEST_HEAD "element 99999999999999999999 ried r lib l.so\n",
                TC_ERR_PROTOCOL, 6, "bad element id");
    test_expect(TEST_HEAD "element 0 jam j blob j.blob hash 0x0123 code 1 got 0 entry 0 "
                "writable 0\n", TC_ERR_PROTOCOL, 6, "hash");
    test_expect(TEST_HEAD "element 0 jam j blob j.blob hash 0x0123456789abcdeZ code 1 "
                "got 0 entry 0 writable 0\n", TC_ERR_PROTOCOL, 6, "hash");
    test_expect(TEST_HEAD "element 0 jam j blob j.blob hash 0x0123456789abcdef code 0 "
                "got 0 entry 0 writable 0\n", TC_ERR_PROTOCOL, 6, "code size");
    test_expect(TEST_HEAD "element 0 jam j blob j.blob hash 0x0123456789abcdef code "
                "65536 got 0 entry 0 writable 0\n", TC_ERR_PROTOCOL, 6, "code size");
    test_expect(TEST_HEAD "element 0 jam j blob j.blob hash 0x0123456789abcdef code 1k "
                "got 0 entry 0 writable 0\n", TC_ERR_PROTOCOL, 6, "code size");
    test_expect(TEST_HEAD "element 0 jam j blob j.blob hash 0x0123456789abcdef code 64 "
                "got 4097 entry 0 writable 0\n", TC_ERR_PROTOCOL, 6, "GOT slot count");
    test_expect(TEST_HEAD "element 0 jam j blob j.blob hash 0x0123456789abcdef code 64 "
                "got 0 entry 64 writable 0\n", TC_ERR_PROTOCOL, 6, "entry offset");
    test_expect(TEST_HEAD "element 0 jam j blob j.blob hash 0x0123456789abcdef code 64 "
                "got 2 entry 8 writable 0\n", TC_ERR_PROTOCOL, 6, "entry offset");
    test_expect(TEST_HEAD "element 0 jam j blob j.blob hash 0x0123456789abcdef code 64 "
                "got 0 entry +1 writable 0\n", TC_ERR_PROTOCOL, 6, "entry offset");
    /* writable bytes follow .text, which holds the entry */
    test_expect(TEST_HEAD "element 0 jam j blob j.blob hash 0x0123456789abcdef code 64 "
                "got 0 entry 16 writable 47\n", TC_OK, 0, "");
    test_expect(TEST_HEAD "element 0 jam j blob j.blob hash 0x0123456789abcdef code 64 "
                "got 0 entry 16 writable 48\n", TC_ERR_PROTOCOL, 6,
                "bad writable size '48' (0..47");
    test_expect(TEST_HEAD "element 0 jam j blob j.blob hash 0x0123456789abcdef code 64 "
                "got 0 entry 0 writable -1\n", TC_ERR_PROTOCOL, 6, "bad writable size");
    test_expect(TEST_HEAD "element 0 jam j blob j.blob hash 0x0123456789abcdef code 64 "
                "got 0 entry 0 writable 08\n", TC_ERR_PROTOCOL, 6, "bad writable size");
    test_expect(TEST_HEAD "element 0 jam j blob j.blob hash 0x0123456789abcdef code 64 "
                "got 0 entry 0 writable 4294967296\n", TC_ERR_PROTOCOL, 6,
                "bad writable size");
}

static void test_element_order_and_names(void **state)
{
    (void)state;
    test_expect(TEST_HEAD TEST_JAM1, TC_ERR_PROTOCOL, 6, "out of order (expected 0)");
    test_expect(TEST_HEAD TEST_JAM0 TEST_RIED2, TC_ERR_PROTOCOL, 7,
                "out of order (expected 1)");
    test_expect(TEST_HEAD TEST_JAM0 TEST_JAM0, TC_ERR_PROTOCOL, 7, "out of order");
    test_expect(TEST_HEAD TEST_JAM0
                "element 1 ried indirect_put lib libried_x.so\n",
                TC_ERR_PROTOCOL, 7, "'indirect_put' already used by element 0");
    test_expect(TEST_HEAD "element 0 ried 1x lib l.so\n", TC_ERR_PROTOCOL, 6,
                "not a C identifier");
    test_expect(TEST_HEAD "element 0 thing r lib l.so\n", TC_ERR_PROTOCOL, 6,
                "unknown element kind");
}

static void test_element_fields(void **state)
{
    (void)state;
    test_expect(TEST_HEAD "element 0 ried\n", TC_ERR_PROTOCOL, 6, "fields");
    test_expect(TEST_HEAD "element 0 ried r lib\n", TC_ERR_PROTOCOL, 6, "expected 6");
    test_expect(TEST_HEAD "element 0 ried r lib a.so b.so\n", TC_ERR_PROTOCOL, 6,
                "expected 6");
    test_expect(TEST_HEAD "element 0 ried r library l.so\n", TC_ERR_PROTOCOL, 6,
                "expected 'lib'");
    test_expect(TEST_HEAD "element 0 ried r lib ../l.so\n", TC_ERR_PROTOCOL, 6,
                "bad ried library");
    test_expect(TEST_HEAD "element 0 jam j blob j.blob hash 0x0123456789abcdef code 64 "
                "got 0 entry 0\n", TC_ERR_PROTOCOL, 6, "expected 16");
    test_expect(TEST_HEAD "element 0 jam j blob j.blob hash 0x0123456789abcdef code 64 "
                "got 0 entry 0 writeable 0\n", TC_ERR_PROTOCOL, 6, "expected 'writable'");
    test_expect(TEST_HEAD "element 0 jam j blob j.blob code 64 hash 0x0123456789abcdef "
                "got 0 entry 0 writable 0\n", TC_ERR_PROTOCOL, 6, "expected 'hash'");
    test_expect(TEST_HEAD "element 0 jam j blob sub/j.blob hash 0x0123456789abcdef "
                "code 64 got 0 entry 0 writable 0\n", TC_ERR_PROTOCOL, 6, "bad blob file");
    test_expect(TEST_HEAD "element 0 a b c d e f g h i j k l m n o p q\n",
                TC_ERR_PROTOCOL, 6, "more than 16 fields");
}

static void test_bad_bytes(void **state)
{
    static const char with_nul[] = TEST_HEAD "element 0 ried r\0 lib l.so\n";
    char err[256];
    tc_manifest_t *m;

    (void)state;
    assert_int_equal(tc_manifest_parse_err(with_nul, sizeof(with_nul) - 1, err,
                                           sizeof(err), &m), TC_ERR_PROTOCOL);
    assert_non_null(strstr(err, "line 6: NUL"));
    /* a CRLF file: the carriage return is part of the last field */
    test_expect("twochains-package 2\r\n", TC_ERR_PROTOCOL, 1, "version");
    assert_int_equal(tc_manifest_parse_err(NULL, 0, err, sizeof(err), &m),
                     TC_ERR_PROTOCOL);
    assert_int_equal(tc_manifest_parse_err(NULL, 1, err, sizeof(err), &m),
                     TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_manifest_parse_err("x", 1, err, sizeof(err), NULL),
                     TC_ERR_INVALID_PARAM);
}

static void test_arch_names(void **state)
{
    (void)state;
    assert_string_equal(tc_manifest_arch_name(TC_BLOB_ARCH_X86_64), "x86_64");
    assert_string_equal(tc_manifest_arch_name(TC_BLOB_ARCH_AARCH64), "aarch64");
    assert_null(tc_manifest_arch_name(3));
    assert_int_equal(tc_manifest_arch_parse("aarch64"), TC_BLOB_ARCH_AARCH64);
    assert_int_equal(tc_manifest_arch_parse("arm64"), 0);
}

/* Elements up to the limit grow the array; ids keep counting. */
static void test_many_elements(void **state)
{
    char *text = NULL;
    size_t len = 0;
    tc_manifest_t *m;
    unsigned i;
    FILE *f;

    (void)state;
    f = open_memstream(&text, &len);
    assert_non_null(f);
    fputs(TEST_HEAD, f);
    for (i = 0; i < 1000; ++i) {
        fprintf(f, "element %u ried r%u lib libried_r%u.so\n", i, i, i);
    }
    fclose(f);
    assert_int_equal(tc_manifest_parse(text, len, &m), TC_OK);
    assert_int_equal(m->n_elements, 1000);
    assert_string_equal(m->elements[999].name, "r999");
    tc_manifest_free(m);
    free(text);
}

/* A header that matches element e of m. */
static tc_blob_file_hdr_t test_hdr_of(const tc_manifest_t *m, const tc_manifest_elem_t *e)
{
    tc_blob_file_hdr_t h;

    memset(&h, 0, sizeof(h));
    memcpy(h.magic, TC_BLOB_MAGIC, 8);
    h.version      = TC_BLOB_VERSION;
    h.arch         = m->arch;
    h.image_size   = e->code_bytes;
    h.code_offset  = (8u * e->got_slots + 15u) & ~15u;
    h.entry_offset = e->entry_offset;
    h.got_count    = e->got_slots;
    h.content_hash = e->hash;
    return h;
}

/* Element name of the valid manifest against a header changed by _change
 * (h: the header): want is the whole reason ("" for a match). */
#define TEST_BLOB_CHECK(_name, _change, _status, _want) \
    do { \
        const tc_manifest_elem_t *_e = tc_manifest_find(m, (_name)); \
        tc_blob_file_hdr_t h; \
        tc_blob_t _blob = {.hdr = &h}; \
        char _err[256]; \
        assert_non_null(_e); \
        h = test_hdr_of(m, _e); \
        _change; \
        assert_int_equal(tc_manifest_check_blob(m, _e, &_blob, _err, sizeof(_err)), (_status)); \
        assert_string_equal(_err, (_want)); \
    } while (0)

/* A blob's header against its manifest element (what tc_pkg_open and
 * tc-pkg inspect both check): the first field that differs is named, with
 * both values. Only the header is read. */
static void test_blob_against_element(void **state)
{
    tc_manifest_t *m;

    (void)state;
    assert_int_equal(tc_manifest_parse(test_valid_text, strlen(test_valid_text), &m),
                     TC_OK);
    TEST_BLOB_CHECK("indirect_put", (void)0, TC_OK, "");
    TEST_BLOB_CHECK("noop", (void)0, TC_OK, "");
    TEST_BLOB_CHECK("noop", h.arch = TC_BLOB_ARCH_AARCH64, TC_ERR_PROTOCOL,
                    "arch aarch64, the manifest's package is for x86_64");
    TEST_BLOB_CHECK("noop", h.content_hash ^= 1, TC_ERR_PROTOCOL,
                    "content hash 0xfedcba9876543211, the manifest's jam 'noop' has "
                    "0xfedcba9876543210");
    TEST_BLOB_CHECK("noop", h.image_size = 4096, TC_ERR_PROTOCOL,
                    "code bytes 4096, the manifest's jam 'noop' has 31");
    TEST_BLOB_CHECK("indirect_put", h.got_count = 0, TC_ERR_PROTOCOL,
                    "GOT slots 0, the manifest's jam 'indirect_put' has 1");
    TEST_BLOB_CHECK("indirect_put", h.entry_offset = 17, TC_ERR_PROTOCOL,
                    "entry offset 17, the manifest's jam 'indirect_put' has 16");
    /* .bss is writable: a jam the manifest says writes nothing has none */
    TEST_BLOB_CHECK("noop", h.bss_size = 8, TC_ERR_PROTOCOL,
                    "8 bytes of .bss, but the manifest's jam 'noop' has writable 0");
    TEST_BLOB_CHECK("indirect_put", h.bss_size = 8, TC_OK, "");
    /* the first difference: the hash before the sizes */
    TEST_BLOB_CHECK("noop", (h.image_size = 8, h.content_hash = 0), TC_ERR_PROTOCOL,
                    "content hash 0x0000000000000000, the manifest's jam 'noop' has "
                    "0xfedcba9876543210");
    tc_manifest_free(m);
}

static char test_logged[512];

static void test_log_catch(tc_log_level_t level, const char *msg, void *arg)
{
    (void)level;
    (void)arg;
    snprintf(test_logged, sizeof(test_logged), "%s", msg);
}

/* A manifest file past the size limit is refused as that, not as memory
 * the host lacks. */
static void test_load_too_large(void **state)
{
    char dir[] = "/tmp/tc-test-manifest.XXXXXX", path[64];
    tc_manifest_t *m = NULL;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/%s", dir, TC_MANIFEST_FILE);
    fclose(fopen(path, "w"));
    assert_int_equal(truncate(path, (64 << 20) + 1), 0); /* sparse: no disk */
    assert_int_equal(tc_log_set_handler(test_log_catch, NULL), TC_OK);
    assert_int_equal(tc_manifest_load(dir, &m), TC_ERR_PROTOCOL);
    assert_int_equal(tc_log_set_handler(NULL, NULL), TC_OK);
    assert_null(m);
    assert_non_null(strstr(test_logged, "manifest.tcm: larger than 67108864 bytes"));
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_valid_variants),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_header_line),
        cmocka_unit_test(test_unknown_keyword),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_describe_refused),
        cmocka_unit_test(test_missing_lines),
        cmocka_unit_test(test_header_values),
        cmocka_unit_test(test_bad_numbers),
        cmocka_unit_test(test_element_order_and_names),
        cmocka_unit_test(test_element_fields),
        cmocka_unit_test(test_bad_bytes),
        cmocka_unit_test(test_arch_names),
        cmocka_unit_test(test_many_elements),
        cmocka_unit_test(test_blob_against_element),
        cmocka_unit_test(test_load_too_large),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
