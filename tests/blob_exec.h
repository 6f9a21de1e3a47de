/*
 * A minimal receiver-side blob executor for the tests: load a package's
 * blobs through its manifest, place each image in an executable mapping,
 * fill the GOT slots with dlsym (RTLD_DEFAULT, then the package library),
 * apply the base fixups,
 * and run each jam's run entry next to the Local Function library's, on
 * separate states made by the package's ried (the blob holds no pack: the
 * sender packs with the library's, as a real sender does).
 *
 * Header-only (static functions) so that test_blob_exec.c (cmocka, this
 * machine) and blob_run.c (a standalone program, also cross-compiled for
 * aarch64 and run under qemu) share it. Needs lib/codec/blob.c, lib/codec/manifest.c,
 * lib/base/status.c and -ldl; no UCX.
 */
#ifndef TC_TEST_BLOB_EXEC_H
#define TC_TEST_BLOB_EXEC_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "twochains.h"
#include "blob.h"
#include "manifest.h"
#include "bench_state.h"

#if defined(__x86_64__)
#define TC_TEST_HOST_ARCH TC_BLOB_ARCH_X86_64
#elif defined(__aarch64__)
#define TC_TEST_HOST_ARCH TC_BLOB_ARCH_AARCH64
#else
#define TC_TEST_HOST_ARCH 0
#endif

typedef struct tc_test_image {
    void           *file;      /* the blob file's bytes */
    tc_blob_t       blob;
    uint8_t        *map;       /* where the image runs */
    size_t          map_len;
    tc_jam_run_fn   run;
} tc_test_image_t;

static int tc_test_fail(char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int tc_test_fail(char *why, size_t why_len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
    return -1;
}

static void *tc_test_read(const char *path, size_t *len_p)
{
    size_t cap = 4096, len = 0, n;
    char *buf  = malloc(cap), *grown;
    FILE *f    = fopen(path, "rb");

    if ((f == NULL) || (buf == NULL)) {
        goto err;
    }
    while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            grown = realloc(buf, cap *= 2);
            if (grown == NULL) {
                goto err;
            }
            buf = grown;
        }
    }
    fclose(f);
    *len_p = len;
    return buf;
err:
    if (f != NULL) {
        fclose(f);
    }
    free(buf);
    return NULL;
}

static void tc_test_image_unload(tc_test_image_t *img)
{
    if (img->map != NULL) {
        munmap(img->map, img->map_len);
    }
    free(img->file);
    memset(img, 0, sizeof(*img));
}

/* What the runtime will do per receiver, done the simple way. Slot names
 * resolve against everything loaded globally (libc, this program), then
 * against lib (the package's library, which holds its rieds). */
static int tc_test_image_load(const char *dir, const tc_manifest_t *m,
                              const tc_manifest_elem_t *e, void *lib,
                              tc_test_image_t *img, char *why, size_t why_len)
{
    const tc_blob_file_hdr_t *h;
    size_t len, page = (size_t)sysconf(_SC_PAGESIZE);
    char path[4096], err[256];
    tc_status_t status;
    uint8_t *base;
    uint32_t i;
    void *addr;

    memset(img, 0, sizeof(*img));
    snprintf(path, sizeof(path), "%s/%s", dir, e->file);
    img->file = tc_test_read(path, &len);
    if (img->file == NULL) {
        return tc_test_fail(why, why_len, "cannot read %s", path);
    }
    status = tc_blob_parse_err(img->file, len, err, sizeof(err), &img->blob);
    if (status == TC_OK) {
        status = tc_manifest_check_blob(m, e, &img->blob, err, sizeof(err));
    }
    if (status != TC_OK) {
        tc_test_image_unload(img);
        return tc_test_fail(why, why_len, "%s: %s", path, err);
    }
    h = img->blob.hdr;

    /* Page-aligned, so 64-byte aligned as lib/codec/blob.h asks. */
    img->map_len = (h->image_size + page - 1) / page * page;
    img->map     = mmap(NULL, img->map_len, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (img->map == MAP_FAILED) {
        img->map = NULL;
        tc_test_image_unload(img);
        return tc_test_fail(why, why_len, "mmap failed");
    }
    base = img->map;
    memcpy(base, img->blob.image, h->image_size);
    for (i = 0; i < h->got_count; ++i) {
        addr = dlsym(RTLD_DEFAULT, tc_blob_slot_name(&img->blob, i));
        if ((addr == NULL) && (lib != NULL)) {
            addr = dlsym(lib, tc_blob_slot_name(&img->blob, i));
        }
        if (addr == NULL) {
            tc_test_image_unload(img);
            return tc_test_fail(why, why_len, "%s: GOT slot %u: '%s' not found", e->name,
                                i, tc_blob_slot_name(&img->blob, i));
        }
        memcpy(base + 8u * i, &addr, sizeof(addr));
    }
    for (i = 0; i < h->fixup_count; ++i) {
        uint64_t word = (uint64_t)(uintptr_t)base + (uint64_t)img->blob.fixups[i].addend;
        memcpy(base + img->blob.fixups[i].offset, &word, sizeof(word));
    }
    /* RWX where allowed (a jam may write its .data/.bss), else R+X. */
    if ((mprotect(base, img->map_len, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) &&
        (mprotect(base, img->map_len, PROT_READ | PROT_EXEC) != 0)) {
        tc_test_image_unload(img);
        return tc_test_fail(why, why_len, "cannot make the image executable");
    }
    __builtin___clear_cache((char *)base, (char *)base + h->image_size);
    img->run  = (tc_jam_run_fn)(void *)(base + h->entry_offset);
    return 0;
}

/* The package's Local Function library and its ried (at most one used). */
typedef struct tc_test_pkg {
    void                 *handle;
    const tc_pkg_desc_t  *desc;
    const tc_pkg_element_t *ried;
} tc_test_pkg_t;

static int tc_test_pkg_open(const char *dir, const tc_manifest_t *m, tc_test_pkg_t *pkg,
                            char *why, size_t why_len)
{
    char path[4096];
    uint32_t i;

    memset(pkg, 0, sizeof(*pkg));
    snprintf(path, sizeof(path), "%s/%s", dir, m->library);
    pkg->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (pkg->handle == NULL) {
        return tc_test_fail(why, why_len, "dlopen %s: %s", path, dlerror());
    }
    pkg->desc = dlsym(pkg->handle, TC_PKG_DESC_SYMBOL);
    if ((pkg->desc == NULL) || (pkg->desc->id != m->id) ||
        (pkg->desc->n_elements != m->n_elements)) {
        dlclose(pkg->handle);
        return tc_test_fail(why, why_len, "%s: descriptor missing or not the manifest's",
                            path);
    }
    for (i = 0; i < pkg->desc->n_elements; ++i) {
        if (pkg->desc->elements[i].kind == TC_ELEM_RIED) {
            pkg->ried = &pkg->desc->elements[i];
            break;
        }
    }
    return 0;
}

static uint64_t tc_test_fnv(uint64_t h, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    size_t i;

    for (i = 0; i < len; ++i) {
        h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    }
    return h;
}

/* A digest of a bench state: what a jam changed, arch-independent. */
static uint64_t tc_test_bench_digest(const tc_bench_state_t *st)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    uint64_t f[] = {st->len, st->cursor, (uint64_t)st->sum, st->calls, st->seq_next,
                    st->seq_errors, st->checksum, st->lat_n};

    h = tc_test_fnv(h, f, sizeof(f));
    return tc_test_fnv(h, st->array, st->len * sizeof(*st->array));
}

static uint64_t tc_test_rand(uint64_t *s)
{
    uint64_t x = *s;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * UINT64_C(0x2545f4914f6cdd1d);
}

/* Run every jam of the package on a fixed script of inputs, injected and
 * local, each side on its own ried state; results must agree. Writes one
 * line per run to out (the same on every architecture). 0: all agree. */
static int tc_test_run_package(const char *dir, FILE *out, char *why, size_t why_len)
{
    static const size_t in_lens[] = {0, 4, 8, 28, 256, 4000};
    uint8_t in[4096], pk_blob[4096 + 64], pk_local[4096 + 64];
    void *st_blob = NULL, *st_local = NULL;
    const tc_manifest_elem_t *e;
    tc_jam_ctx_t ctx_blob, ctx_local;
    tc_manifest_t *m = NULL;
    tc_test_image_t img;
    tc_test_pkg_t pkg;
    int64_t pr_l, r_b, r_l;
    uint64_t seed = UINT64_C(0x9e3779b97f4a7c15);
    int is_bench, rc = -1;
    uint32_t i;
    size_t k, b;

    if (tc_manifest_load(dir, &m) != TC_OK) {
        return tc_test_fail(why, why_len, "cannot load %s/%s", dir, TC_MANIFEST_FILE);
    }
    if (m->arch != TC_TEST_HOST_ARCH) {
        tc_test_fail(why, why_len, "package is %s, this machine is not",
                     tc_manifest_arch_name(m->arch));
        goto out_free_m;
    }
    if (tc_test_pkg_open(dir, m, &pkg, why, why_len) != 0) {
        goto out_free_m;
    }
    is_bench = (pkg.ried != NULL) && (strcmp(m->name, "bench") == 0);

    for (i = 0; i < m->n_elements; ++i) {
        e = &m->elements[i];
        if (e->kind != TC_ELEM_JAM) {
            continue;
        }
        if (tc_test_image_load(dir, m, e, pkg.handle, &img, why, why_len) != 0) {
            goto out_close;
        }
        if ((pkg.ried != NULL) &&
            ((pkg.ried->init(&st_blob) != 0) || (pkg.ried->init(&st_local) != 0))) {
            tc_test_image_unload(&img);
            tc_test_fail(why, why_len, "ried init failed");
            goto out_close;
        }
        memset(&ctx_blob, 0, sizeof(ctx_blob));
        memset(&ctx_local, 0, sizeof(ctx_local));
        ctx_blob.state  = st_blob;
        ctx_local.state = st_local;

        for (k = 0; k < sizeof(in_lens) / sizeof(in_lens[0]); ++k) {
            for (b = 0; b < in_lens[k]; ++b) {
                in[b] = (uint8_t)tc_test_rand(&seed);
            }
            /* seq and stamp take an 8-byte counter: the first one they expect */
            if (in_lens[k] == 8) {
                memset(in, 0, 8);
            }
            memset(pk_blob, 0, sizeof(pk_blob));
            memset(pk_local, 0, sizeof(pk_local));
            pr_l = pkg.desc->elements[i].pack(pk_local, sizeof(pk_local), in, in_lens[k]);
            if (pr_l < 0) {
                fprintf(out, "jam=%s in=%zu pack=-1\n", e->name, in_lens[k]);
                continue;
            }
            /* both runs get the same payload bytes */
            memcpy(pk_blob, pk_local, (size_t)pr_l);
            r_b = img.run(&ctx_blob, pk_blob, (size_t)pr_l);
            r_l = pkg.desc->elements[i].run(&ctx_local, pk_local, (size_t)pr_l);
            if ((r_b != r_l) ||
                (is_bench && (tc_test_bench_digest(st_blob) != tc_test_bench_digest(st_local)))) {
                tc_test_fail(why, why_len, "%s: run on %lld bytes: injected %lld, local "
                             "%lld (or the states differ)", e->name, (long long)pr_l,
                             (long long)r_b, (long long)r_l);
                goto out_unload;
            }
            fprintf(out, "jam=%s in=%zu pack=%lld ret=%lld state=%016llx\n", e->name,
                    in_lens[k], (long long)pr_l, (long long)r_l,
                    is_bench ? (unsigned long long)tc_test_bench_digest(st_local) : 0ull);
        }
        fprintf(out, "jam=%s code=%u got=%u ok\n", e->name, e->code_bytes, e->got_slots);
        if (pkg.ried != NULL) {
            pkg.ried->fini(st_blob);
            pkg.ried->fini(st_local);
            st_blob = st_local = NULL;
        }
        tc_test_image_unload(&img);
    }
    rc = 0;
    goto out_close;

out_unload:
    if (pkg.ried != NULL) {
        pkg.ried->fini(st_blob);
        pkg.ried->fini(st_local);
    }
    tc_test_image_unload(&img);
out_close:
    dlclose(pkg.handle);
out_free_m:
    tc_manifest_free(m);
    return rc;
}

#endif
