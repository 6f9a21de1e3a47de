/*
 * tc-run: run one jam once on a peer and show what it did, for people
 * trying a jam. Both sides live in this process (loopback, two threads, two
 * UCX contexts), so the receiver's state can be shown after the call.
 */
#define _GNU_SOURCE
#include "twochains.h"
#include "barrier.h"
#include "log.h"
#include "tool.h"
#include "bench_state.h"
#include "harness/pkg_path.h"

#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define RUN_MAX_PAYLOAD 65536

typedef struct run_side {
    tc_boot_t    *boot;
    tc_pkg_t     *pkg;
    tc_context_t *ctx;
    tc_peer_t    *peer;
    tc_status_t   status;
    int           serve;   /* receiver: handle frames until told to stop */
    int           wx;      /* W^X code areas */
    int           stop;    /* set by the other thread (tc_write_once) */
} run_side_t;

static void run_usage(FILE *out);
static const tc_tool_t run_tool = {"tc-run", run_usage};

/* --list: the package's jams, with what each one's source says it does,
 * takes and returns (TC_JAM_DESCRIBE, from the manifest). */
static int run_list(const tc_pkg_t *pkg)
{
    const tc_pkg_desc_t *desc = tc_pkg_desc(pkg);
    tc_jam_doc_t doc;
    tc_jam_t jam;
    uint32_t i;

    printf("package %s (payloads: --ints, --u32, --u64 or --text):\n", desc->name);
    for (i = 0; i < desc->n_elements; ++i) {
        if ((desc->elements[i].kind != TC_ELEM_JAM) ||
            (tc_pkg_jam(pkg, desc->elements[i].name, &jam) != TC_OK)) {
            continue;
        }
        if (tc_jam_doc(&jam, &doc) == TC_OK) {
            printf("  %s: %s\n", desc->elements[i].name, doc.what);
            printf("      payload: %s\n", doc.payload);
            printf("      result:  %s\n", doc.result);
        } else {
            printf("  %s: not described (its source has no TC_JAM_DESCRIBE)\n",
                   desc->elements[i].name);
        }
    }
    return 0;
}

/* A payload the jam's pack refuses (-1), said before anything runs, with
 * what it takes where its source says: the pack run on the payload into
 * scratch memory (a pack is a pure function of its input). A pack that
 * claims more than its room is left to the send, which names both numbers.
 * 0, or 2 said. */
static int run_check_payload(const tc_jam_t *jam, const char *payload_opt, const void *payload,
                             size_t len)
{
    size_t cap = len + 4096;
    void *dst = malloc(cap);
    tc_jam_doc_t doc;
    int64_t packed;

    if (dst == NULL) {
        return 0; /* the send says it, if it fails */
    }
    packed = jam->elem->pack(dst, cap, payload, len);
    free(dst);
    if (packed >= 0) {
        return 0;
    }
    if (tc_jam_doc(jam, &doc) != TC_OK) {
        return tc_tool_bad(&run_tool, "%s does not take a %zu-byte payload (its pack routine "
                           "refused it; its source does not say what it takes: "
                           "TC_JAM_DESCRIBE)", jam->elem->name, len);
    }
    if (payload_opt == NULL) {
        return tc_tool_bad(&run_tool, "%s needs a payload; it takes: %s", jam->elem->name,
                           doc.payload);
    }
    return tc_tool_bad(&run_tool, "%s does not take a %zu-byte payload; it takes: %s",
                       jam->elem->name, len, doc.payload);
}

static void run_usage(FILE *out)
{
    fprintf(out,
            "usage: tc-run -j JAM [-P DIR] [-m local|injected|cached] [payload]\n"
            "       tc-run --list [-P DIR]\n"
            "  --list      the package's jams: what each does, takes and returns\n"
            "  -P DIR      package install directory (default: the bench package of this build)\n"
            "  -j JAM      the jam to run\n"
            "  -m MODE     local (default), injected or cached\n"
            "  --wx        the receiver runs injected code W^X (refuses jams that write\n"
            "              their own .data or .bss)\n"
            "  payload, at most one of:\n"
            "    --ints A,B,...   int32 values\n"
            "    --u32 A,B,...    uint32 values\n"
            "    --u64 N          one uint64\n"
            "    --text STRING    the bytes of STRING\n"
            "  -h, --help  this help\n"
            "  --version   the tool's revision and UCX's version\n"
            "Runs the jam once on a peer in this process and prints result=<int64> and\n"
            "the receiver-side effect.\n"
            TC_TOOL_EXIT_HELP);
}


/* A comma list of numbers into buf as int32/uint32 (width 4) values. */
static int run_parse_list(const char *opt, const char *arg, int is_signed, uint8_t *buf,
                          size_t *len_p)
{
    char *copy, *tok, *save = NULL;
    size_t len = 0;
    uint64_t v;
    int rc = 0;

    if (tc_tool_list_has_empty(arg)) {
        return tc_tool_bad_empty(&run_tool, opt, arg);
    }
    copy = strdup(arg);
    for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        int neg = is_signed && (tok[0] == '-');
        if ((len + 4 > RUN_MAX_PAYLOAD) ||
            tc_tool_parse_u64(tok + neg, 0, neg ? 2147483648ull :
                                           (is_signed ? INT32_MAX : UINT32_MAX), &v)) {
            rc = tc_tool_bad(&run_tool, "bad number '%s'", tok);
            break;
        }
        uint32_t w = neg ? (uint32_t)(-(int64_t)v) : (uint32_t)v;
        memcpy(buf + len, &w, 4);
        len += 4;
    }
    free(copy);
    *len_p = len;
    return rc;
}

static void *run_side(void *arg)
{
    run_side_t *side = arg;
    tc_context_params_t params;
    unsigned n;

    tc_context_params_init(&params);
    params.slots      = 4;
    params.slot_size  = 4u * RUN_MAX_PAYLOAD;
    params.frames     = TC_FRAMES_VARIABLE;
    params.timeout_ms = 5000;
    params.rank       = (uint32_t)side->boot->rank;
    params.wx         = side->wx;
    side->status      = tc_context_create(&params, &side->ctx);
    if (side->status == TC_OK) {
        side->status = tc_context_add_pkg(side->ctx, side->pkg);
    }
    if (side->status == TC_OK) {
        side->status = tc_peer_connect(side->ctx, side->boot, NULL, &side->peer);
    }
    while ((side->status == TC_OK) && side->serve && !tc_read_once(&side->stop)) {
        side->status = tc_peer_progress(side->peer, 0, &n);
    }
    return NULL;
}

/* -P DIR: tc_pkg_open takes a package directory itself. */
static tc_status_t run_open_pkg(const char *dir, tc_pkg_t **pkg_p)
{
    char path[PATH_MAX];
    tc_status_t status;

    if (dir != NULL) {
        return tc_pkg_open(dir, pkg_p);
    }
    status = tc_pkg_default_path(path, sizeof(path));
    return (status == TC_OK) ? tc_pkg_open(path, pkg_p) : status;
}

int main(int argc, char **argv)
{
    static const struct option long_opts[] = {
        /* the payloads first: long_opts[c - 1] is payload option c */
        {"ints", required_argument, NULL, 1}, {"u32", required_argument, NULL, 2},
        {"u64", required_argument, NULL, 3},  {"text", required_argument, NULL, 4},
        {"wx", no_argument, NULL, 5},         {"help", no_argument, NULL, 'h'},
        {"list", no_argument, NULL, 6},
        {"version", no_argument, NULL, TC_TOOL_OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    static uint8_t payload[RUN_MAX_PAYLOAD];
    const char *dir = NULL, *jam_name = NULL, *payload_opt = NULL, *payload_arg = NULL;
    tc_mode_t mode = TC_MODE_LOCAL;
    run_side_t rx, tx;
    size_t len = 0;
    pthread_t thread;
    tc_bench_state_t *st;
    tc_status_t status;
    int64_t result = 0;
    tc_jam_t jam;
    uint64_t v;
    int c, rc, wx = 0, list = 0;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":P:j:m:h", long_opts, NULL)) != -1) {
        rc = tc_tool_check_value(&run_tool, argc, argv);
        if (rc != 0) {
            return rc;
        }
        if ((c >= 1) && (c <= 4)) {
            /* one payload: a second would silently replace the first */
            if (payload_opt != NULL) {
                return tc_tool_bad(&run_tool, "--%s %s: the payload is already --%s %s (one "
                                   "of --ints, --u32, --u64, --text)", long_opts[c - 1].name,
                                   optarg, payload_opt, payload_arg);
            }
            payload_opt = long_opts[c - 1].name;
            payload_arg = optarg;
        }
        switch (c) {
        case 'P': dir = optarg; break;
        case 'j': jam_name = optarg; break;
        case 'm': {
            unsigned m;
            rc = tc_tool_opt_name(&run_tool, &tc_names_mode, TC_TOOL_NAMES_ALL, optarg,
                                  "unknown mode '%s' (local, injected, cached)", &m);
            if (rc == 0) {
                mode = (tc_mode_t)m;
            }
            break;
        }
        case 1: rc = run_parse_list("--ints", optarg, 1, payload, &len); break;
        case 2: rc = run_parse_list("--u32", optarg, 0, payload, &len); break;
        case 3:
            rc = tc_tool_opt_u64(&run_tool, optarg, 0, UINT64_MAX, "bad number '%s'", &v);
            if (rc == 0) {
                memcpy(payload, &v, sizeof(v));
                len = sizeof(v);
            }
            break;
        case 4:
            len = strlen(optarg);
            if (len > RUN_MAX_PAYLOAD) {
                return tc_tool_bad(&run_tool, "text longer than %d bytes", RUN_MAX_PAYLOAD);
            }
            memcpy(payload, optarg, len);
            break;
        case 5: wx = 1; break;
        case 6: list = 1; break;
        case 'h': run_usage(stdout); return 0;
        case TC_TOOL_OPT_VERSION: return tc_tool_version(&run_tool);
        default: return tc_tool_bad_opt(&run_tool, c, argv);
        }
        if (rc != 0) {
            return rc;
        }
    }
    if (optind < argc) {
        return tc_tool_bad(&run_tool, "unexpected argument '%s'", argv[optind]);
    }
    if (list) {
        if (jam_name != NULL) {
            return tc_tool_bad(&run_tool, "--list lists every jam: no -j");
        }
        if (run_open_pkg(dir, &rx.pkg) != TC_OK) {
            return 1;
        }
        rc = run_list(rx.pkg);
        tc_pkg_close(rx.pkg);
        return rc;
    }
    if (jam_name == NULL) {
        return tc_tool_bad(&run_tool, "which jam? (-j JAM; tc-run --list shows them)");
    }
    memset(&rx, 0, sizeof(rx));
    memset(&tx, 0, sizeof(tx));
    if (run_open_pkg(dir, &rx.pkg) != TC_OK) {
        return 1;
    }
    tx.pkg = rx.pkg;
    if (tc_pkg_jam(rx.pkg, jam_name, &jam) != TC_OK) {
        rc = tc_tool_bad_jam(&run_tool, rx.pkg, jam_name);
        tc_pkg_close(rx.pkg);
        return rc;
    }
    /* a payload the jam would refuse: say what it takes, before anything runs */
    rc = run_check_payload(&jam, payload_opt, payload, len);
    if (rc != 0) {
        tc_pkg_close(rx.pkg);
        return rc;
    }
    if (tc_boot_loopback_pair(5000, &rx.boot, &tx.boot) != TC_OK) {
        tc_pkg_close(rx.pkg);
        return 1;
    }

    rx.serve = 1;
    rx.wx    = tx.wx = wx;
    pthread_create(&thread, NULL, run_side, &rx);
    run_side(&tx);
    status = tx.status;
    if (status == TC_OK) {
        status = tc_jam_call(tx.peer, &jam, payload, len, TC_SEND_PARAMS(mode, 0), &result);
    }
    tc_write_once(&rx.stop, 1);
    pthread_join(thread, NULL);
    if ((status == TC_OK) && (rx.status != TC_OK)) {
        status = rx.status;
    }

    if (status == TC_OK) {
        uint32_t code = 0, slots = 0;
        printf("jam=%s mode=%s payload_bytes=%zu\n", jam_name, tc_mode_str(mode), len);
        if (tc_jam_code_info(&jam, &code, &slots) == TC_OK) {
            printf("code_bytes=%u got_slots=%u\n", code, slots);
        }
        printf("result=%lld\n", (long long)result);
        st = tc_context_pkg_state(rx.ctx, rx.pkg);
        if (strcmp(tc_pkg_desc(rx.pkg)->name, "bench") == 0) {
            printf("effect: calls=%llu sum=%lld puts=%llu next_seq=%llu out_of_order=%llu\n",
                   (unsigned long long)st->calls, (long long)st->sum,
                   (unsigned long long)st->cursor, (unsigned long long)st->seq_next,
                   (unsigned long long)st->seq_errors);
        } else {
            printf("effect: package '%s' keeps its own state (not shown)\n",
                   tc_pkg_desc(rx.pkg)->name);
        }
    } else {
        fprintf(stderr, "tc-run: %s\n", tc_status_str(status));
    }

    tc_peer_close(tx.peer);
    tc_peer_close(rx.peer);
    tc_context_destroy(tx.ctx);
    tc_context_destroy(rx.ctx);
    tc_boot_close(tx.boot);
    tc_boot_close(rx.boot);
    tc_pkg_close(rx.pkg);
    return (status == TC_OK) ? 0 : 1;
}
