/* The evaluation cache's keys and values (eval_cache.h). */
#include "eval_cache.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/eval/nnue.h"
#include "../../engine/notation/fen.h"
#include "../../engine/notation/move.h"
#include "../../engine/search/search.h"

char *eval_cache_prefix(const char *fen) { return eval_cache_key(fen, NULL); }

char *eval_cache_key(const char *fen, const json_t *how)
{
    size_t cut = 0;
    for (int spaces = 0; fen[cut] && !(fen[cut] == ' ' && ++spaces == 4); cut++)
        ;
    /* Which evaluation searched it, and the scale its centipawns were shown on: a new network or a
     * new calibration never meets the old one's entries. */
    const Network *net = nnue_default();
    char evaluation[32];
    if (net)
        snprintf(evaluation, sizeof evaluation, "nn%016" PRIx64 "/%d", net->checksum, SCORE_PAWN);
    else
        snprintf(evaluation, sizeof evaluation, "hand/%d", SCORE_PAWN);
    char *text = how ? json_dumps(how, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    size_t n = cut + strlen(evaluation) + (text ? strlen(text) : 0) + 3;
    char *key = malloc(n);
    if (key)
        snprintf(key, n, "%.*s %s %s", (int)cut, fen, evaluation, text ? text : "");
    free(text);
    return key;
}

char *eval_cache_value(const ReviewPosition *r, int depth, uint64_t nodes)
{
    char *v = malloc(80 + REVIEW_LINE_MAX * 6);
    if (!v)
        return NULL;
    int n = sprintf(v, "%s %d depth %d nodes %" PRIu64 " pv", r->is_mate ? "mate" : "cp", r->is_mate ? r->mate : r->cp,
                    depth, nodes);
    for (int i = 0; i < r->line_len; i++) {
        char uci[MOVE_STRING_SIZE];
        n += sprintf(v + n, " %s", move_to_uci(r->line[i], uci));
    }
    return v;
}

bool eval_cache_parse(const char *v, const char *fen, ReviewPosition *r, int *depth, uint64_t *nodes)
{
    char kind[8];
    int value, d, used = 0;
    uint64_t count;
    if (sscanf(v, "%7s %d depth %d nodes %" SCNu64 " pv%n", kind, &value, &d, &count, &used) != 4 || !used ||
        (strcmp(kind, "cp") && strcmp(kind, "mate")))
        return false;
    static Position start; /* loop thread only */
    if (fen_read(&start, fen, NULL, 0) != FEN_OK)
        return false;
    memset(r, 0, sizeof *r);
    r->has = true;
    r->is_mate = kind[0] == 'm';
    r->mate = r->is_mate ? value : 0;
    r->cp = r->is_mate ? 0 : value;
    review_line_from_uci(r, &start, v + used);
    if (depth)
        *depth = d;
    if (nodes)
        *nodes = count;
    return true;
}
