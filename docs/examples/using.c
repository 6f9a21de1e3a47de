/*
 * using.c: two processes, one package, one jam three ways, a ried shipped.
 * The program docs/USING.md walks through; tests/test_using_guide.sh builds
 * it from an installed tree and runs it.
 *
 *   cc using.c -o using $(pkg-config --cflags --libs twochains) \
 *       -Wl,-rpath,$(pkg-config --variable=libdir twochains)
 *   pkg=$(pkg-config --variable=benchpkgdir twochains)
 *   ./using server $pkg 0 &            # prints "server: listening on port P"
 *   ./using client $pkg localhost P
 *
 * A third argument on both sides picks the frames: variable (the default),
 * fixed (each side sizes its frames for what it sends) or fixed:BYTES (a
 * fixed size forced, to see what a too-small one says).
 */
#include <twochains.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TIMEOUT_MS 60000   /* every bootstrap step, and the longest silence */
#define SLOT_SIZE  4096    /* bytes per mailbox slot: the largest frame either side takes */

typedef struct frames {
    tc_frame_mode_t mode;
    uint32_t        forced;   /* fixed:BYTES, else 0 */
} frames_t;

static int parse_frames(const char *arg, frames_t *f)
{
    f->mode   = TC_FRAMES_VARIABLE;
    f->forced = 0;
    if ((arg == NULL) || (strcmp(arg, "variable") == 0)) {
        return 0;
    }
    if (strncmp(arg, "fixed", 5) == 0) {
        f->mode = TC_FRAMES_FIXED;
        if (arg[5] == ':') {
            f->forced = (uint32_t)strtoul(arg + 6, NULL, 10);
            return (f->forced == 0) ? -1 : 0;
        }
        return (arg[5] == '\0') ? 0 : -1;
    }
    return -1;
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
    return (a > b) ? a : b;
}

/* Both sides: the package and a context that knows it. */
static tc_status_t open_side(const char *pkg_dir, const frames_t *frames, uint32_t rank,
                             tc_pkg_t **pkg_p, tc_context_t **ctx_p)
{
    tc_context_params_t params;
    tc_status_t status;

    /* a package directory (or its .so): the library, its blobs, its manifest */
    status = tc_pkg_open(pkg_dir, pkg_p);
    if (status != TC_OK) {
        fprintf(stderr, "using: tc_pkg_open(%s): %s\n", pkg_dir, tc_status_str(status));
        return status;
    }

    tc_context_params_init(&params);  /* every field, with its default */
    params.slot_size  = SLOT_SIZE;
    params.frames     = frames->mode; /* must be the same on both sides */
    params.timeout_ms = TIMEOUT_MS;
    params.rank       = rank;
    status = tc_context_create(&params, ctx_p);
    if (status != TC_OK) {
        fprintf(stderr, "using: tc_context_create: %s\n", tc_status_str(status));
        goto err_close_pkg;
    }
    /* runs the package's ried initialiser: the state its jams work on here */
    status = tc_context_add_pkg(*ctx_p, *pkg_p);
    if (status != TC_OK) {
        fprintf(stderr, "using: tc_context_add_pkg: %s\n", tc_status_str(status));
        goto err_destroy_ctx;
    }
    return TC_OK;

err_destroy_ctx:
    tc_context_destroy(*ctx_p);
err_close_pkg:
    tc_pkg_close(*pkg_p);
    return status;
}

static void print_port(uint16_t port, void *arg)
{
    (void)arg;
    printf("server: listening on port %u\n", port);
    fflush(stdout); /* the client needs it now, not at exit */
}

static int run_server(const char *pkg_dir, uint16_t port, const frames_t *frames)
{
    tc_peer_params_t pp = {0};
    tc_peer_stats_t stats;
    tc_context_t *ctx;
    tc_status_t status;
    tc_boot_t *boot;
    tc_peer_t *peer;
    tc_pkg_t *pkg;
    tc_jam_t jam;

    if (open_side(pkg_dir, frames, 0, &pkg, &ctx) != TC_OK) {
        return 1;
    }
    if (frames->mode == TC_FRAMES_FIXED) {
        /* the server sends too: results, and the answers to namespace
         * syncs, which hold one address per GOT slot of the jam */
        status = tc_pkg_jam(pkg, "server_sum", &jam);
        if (status != TC_OK) {
            fprintf(stderr, "using: no jam server_sum: %s\n", tc_status_str(status));
            goto out_destroy_ctx;
        }
        pp.field_mask = TC_PEER_PARAM_FIELD_FRAME_SIZE;
        pp.frame_size = frames->forced ? frames->forced :
                                         tc_jam_prepare_size(&jam, TC_MODE_CACHED);
    }

    status = tc_boot_tcp_server_cb(port, TIMEOUT_MS, print_port, NULL, &boot);
    if (status != TC_OK) {
        fprintf(stderr, "using: tc_boot_tcp_server: %s\n", tc_status_str(status));
        goto out_destroy_ctx;
    }
    status = tc_peer_connect(ctx, boot, &pp, &peer);
    if (status != TC_OK) {
        fprintf(stderr, "using: tc_peer_connect: %s\n", tc_status_str(status));
        goto out_close_boot;
    }
    printf("server: connected to the %s\n", tc_peer_name(peer));
    fflush(stdout);

    /* run what arrives until the client says goodbye */
    do {
        status = tc_peer_wait(peer, NULL);
    } while (status == TC_OK);

    tc_peer_stats(peer, &stats);
    if (status == TC_ERR_CLOSED) {
        printf("server: the client said goodbye; rejected %" PRIu64 " frames\n",
               stats.rx_rejected);
        status = TC_OK;
    } else {
        fprintf(stderr, "using: serving: %s\n", tc_status_str(status));
    }
    tc_peer_close(peer);
out_close_boot:
    tc_boot_close(boot);
out_destroy_ctx:
    tc_context_destroy(ctx);
    tc_pkg_close(pkg);
    return (status == TC_OK) ? 0 : 1;
}

/* One call and its result; on a refusal, the peer's reason. */
static tc_status_t call(tc_peer_t *peer, const tc_jam_t *jam, tc_mode_t mode,
                        const int32_t *v, size_t n, const char *what)
{
    tc_status_t status;
    tc_nack_t nack;
    int64_t ret;

    status = tc_jam_call(peer, jam, v, n * sizeof(*v), TC_SEND_PARAMS(mode, 0), &ret);
    if (status != TC_OK) {
        fprintf(stderr, "using: %s %s: %s\n", tc_mode_str(mode), what, tc_status_str(status));
        if (tc_peer_last_nack(peer, &nack) == TC_OK) {
            fprintf(stderr, "using: the server said: %s\n", nack.reason);
        }
        return status;
    }
    printf("%-8s %s = %" PRId64 "\n", tc_mode_str(mode), what, ret);
    return TC_OK;
}

static int run_client(const char *pkg_dir, const char *host, uint16_t port,
                      const frames_t *frames)
{
    static const int32_t a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8}, c[] = {100, -50, 0, 1};
    static const int32_t big[2048] = {0}; /* 8 KiB: more than a slot holds */
    static const int32_t k = 1000, zero = 0;
    char ried_path[4096], exports[256];
    tc_peer_params_t pp = {0};
    tc_context_t *ctx;
    tc_status_t status;
    uint32_t ried_id;
    tc_boot_t *boot;
    tc_peer_t *peer;
    tc_pkg_t *pkg;
    tc_jam_t jam;
    char *p;

    if (open_side(pkg_dir, frames, 1, &pkg, &ctx) != TC_OK) {
        return 1;
    }
    status = tc_pkg_jam(pkg, "server_sum", &jam);
    if (status != TC_OK) {
        fprintf(stderr, "using: no jam server_sum: %s\n", tc_status_str(status));
        goto out_destroy_ctx;
    }
    if (frames->mode == TC_FRAMES_FIXED) {
        /* every frame of ours has this size: the largest we will send */
        pp.field_mask = TC_PEER_PARAM_FIELD_FRAME_SIZE;
        pp.frame_size = max_u32(max_u32(tc_jam_frame_size(&jam, TC_MODE_LOCAL, sizeof(a)),
                                        tc_jam_frame_size(&jam, TC_MODE_INJECTED, sizeof(a))),
                                max_u32(tc_jam_frame_size(&jam, TC_MODE_CACHED, sizeof(a)),
                                        tc_jam_prepare_size(&jam, TC_MODE_CACHED)));
        if (frames->forced) {
            pp.frame_size = frames->forced;
        }
        printf("client: fixed %u-byte frames\n", pp.frame_size);
    }

    status = tc_boot_tcp_client(host, port, TIMEOUT_MS, &boot);
    if (status != TC_OK) {
        fprintf(stderr, "using: tc_boot_tcp_client(%s:%u): %s\n", host, port,
                tc_status_str(status));
        goto out_destroy_ctx;
    }
    status = tc_peer_connect(ctx, boot, &pp, &peer);
    if (status != TC_OK) {
        fprintf(stderr, "using: tc_peer_connect: %s\n", tc_status_str(status));
        goto out_close_boot;
    }

    /* the same jam three ways: the server's own copy by element id; the
     * code in every frame; the code once, then its hash */
    status = call(peer, &jam, TC_MODE_LOCAL, a, 4, "server_sum(1, 2, 3, 4)");
    if (status == TC_OK) {
        status = call(peer, &jam, TC_MODE_INJECTED, b, 4, "server_sum(5, 6, 7, 8)");
    }
    if (status == TC_OK) {
        status = call(peer, &jam, TC_MODE_CACHED, c, 4, "server_sum(100, -50, 0, 1)");
    }
    if (status != TC_OK) {
        goto out_close_peer;
    }

    /* no reply asked: returns once the frame is on its way */
    status = tc_jam_send(peer, &jam, &k, sizeof(k), NULL);
    if (status != TC_OK) {
        fprintf(stderr, "using: tc_jam_send: %s\n", tc_status_str(status));
        goto out_close_peer;
    }
    printf("sent     server_sum(1000), no reply\n");
    /* frames run in order: this one's result includes the 1000 */
    status = call(peer, &jam, TC_MODE_LOCAL, &zero, 1, "server_sum(0)");
    if (status != TC_OK) {
        goto out_close_peer;
    }

    /* a ried of the package, shipped: the server loads it from memory,
     * runs its initialiser and answers with what it exports */
    snprintf(ried_path, sizeof(ried_path), "%s/libried_bench.so", pkg_dir);
    status = tc_ried_ship(peer, ried_path, sizeof(exports), exports, &ried_id);
    if (status != TC_OK) {
        fprintf(stderr, "using: tc_ried_ship(%s): %s\n", ried_path, tc_status_str(status));
        goto out_close_peer;
    }
    for (p = exports; (p = strchr(p, '\n')) != NULL;) {
        *p = ' ';
    }
    printf("ried     libried_bench.so shipped: exports %s\n", exports);
    status = tc_ried_unload(peer, ried_id);
    if (status != TC_OK) {
        fprintf(stderr, "using: tc_ried_unload: %s\n", tc_status_str(status));
        goto out_close_peer;
    }

    /* errors are statuses: a jam the package lacks, a payload no slot holds */
    status = tc_pkg_jam(pkg, "no_such_jam", &(tc_jam_t){0});
    printf("error    tc_pkg_jam(no_such_jam): %s\n", tc_status_str(status));
    status = tc_jam_call(peer, &jam, big, sizeof(big), NULL, &(int64_t){0});
    printf("error    server_sum of 8192 bytes: %s\n", tc_status_str(status));
    status = TC_OK; /* both expected; the peer is fine */
    printf("client: done\n");

out_close_peer:
    tc_peer_close(peer);  /* goodbye: the server's wait returns TC_ERR_CLOSED */
out_close_boot:
    tc_boot_close(boot);
out_destroy_ctx:
    tc_context_destroy(ctx);
    tc_pkg_close(pkg);
    return (status == TC_OK) ? 0 : 1;
}

int main(int argc, char **argv)
{
    frames_t frames;

    if ((argc >= 3) && (argc <= 5) && (strcmp(argv[1], "server") == 0) &&
        (parse_frames((argc == 5) ? argv[4] : NULL, &frames) == 0)) {
        return run_server(argv[2], (uint16_t)((argc >= 4) ? atoi(argv[3]) : 0), &frames);
    }
    if ((argc >= 5) && (argc <= 6) && (strcmp(argv[1], "client") == 0) &&
        (parse_frames((argc == 6) ? argv[5] : NULL, &frames) == 0)) {
        return run_client(argv[2], argv[3], (uint16_t)atoi(argv[4]), &frames);
    }
    fprintf(stderr, "usage: using server PKG_DIR [PORT [FRAMES]]\n"
                    "       using client PKG_DIR HOST PORT [FRAMES]\n"
                    "FRAMES: variable (default), fixed or fixed:BYTES\n");
    return 2;
}
