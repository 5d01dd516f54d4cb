/* `feelfish cluster status --redis URL`: the live nodes (their heartbeat lines, domain/shared.h), the
 * job stream's backlog, what each worker holds, and the jobs taken over. A one-off read with
 * hiredis's blocking API: no loop needed. Exit 1 when Redis cannot be reached. */
#include "cluster.h"

#include <hiredis/hiredis.h>
#include <stdlib.h>
#include <string.h>

#include "../domain/shared.h"
#include "../jobs/cluster.h"

static int usage(const char *why)
{
    fprintf(stderr,
            "cluster: %s\n"
            "usage: feelfish cluster status --redis redis://HOST:PORT[/DB]\n"
            "  prints the cluster's live fronts and workers, the job stream's backlog and what each worker holds\n",
            why);
    return 2;
}

static int compare_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every live node's line, fronts first (their lines start "front", workers' "worker"). */
static void print_nodes(redisContext *c, FILE *out)
{
    char *lines[512];
    int n = 0, fronts = 0;
    char cursor[32] = "0";
    do {
        redisReply *r = redisCommand(c, "SCAN %s MATCH %s* COUNT 1000", cursor, SHARED_NODE);
        if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) {
            freeReplyObject(r);
            break;
        }
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        for (size_t i = 0; i < r->element[1]->elements && n < 512; i++) {
            redisReply *line = redisCommand(c, "GET %s", r->element[1]->element[i]->str);
            if (line && line->type == REDIS_REPLY_STRING && (lines[n] = strdup(line->str))) {
                fronts += !strncmp(lines[n], "front ", 6);
                n++;
            }
            freeReplyObject(line);
        }
        freeReplyObject(r);
    } while (strcmp(cursor, "0"));
    qsort(lines, (size_t)n, sizeof *lines, compare_text);
    fprintf(out, "nodes: %d fronts, %d workers\n", fronts, n - fronts);
    for (int i = 0; i < n; i++) {
        fprintf(out, "  %s\n", lines[i]);
        free(lines[i]);
    }
}

/* One stream's line and its consumers'; the take-over count (kept for both) after the regular one. */
static void print_stream(redisContext *c, FILE *out, const char *stream, const char *what)
{
    redisReply *len = redisCommand(c, "XLEN %s", stream);
    redisReply *groups = redisCommand(c, "XINFO GROUPS %s", stream);
    redisReply *reclaimed = strcmp(stream, CLUSTER_STREAM) ? NULL : redisCommand(c, "HGET %s reclaimed", SHARED_STATS);
    const redisReply *group = NULL;
    for (size_t i = 0; groups && groups->type == REDIS_REPLY_ARRAY && i < groups->elements; i++)
        if (!strcmp(redis_text(redis_field(groups->element[i], "name")), CLUSTER_GROUP))
            group = groups->element[i];
    fprintf(out, "stream %s (%s): %lld entries, backlog %lld (not taken yet), pending %lld (taken, not finished)",
            stream, what, len && len->type == REDIS_REPLY_INTEGER ? len->integer : 0,
            redis_number(redis_field(group, "lag")), redis_number(redis_field(group, "pending")));
    if (reclaimed)
        fprintf(out, ", %s taken over", reclaimed->type == REDIS_REPLY_STRING ? reclaimed->str : "0");
    fputc('\n', out);
    freeReplyObject(len);
    freeReplyObject(groups);
    freeReplyObject(reclaimed);
    redisReply *consumers = redisCommand(c, "XINFO CONSUMERS %s %s", stream, CLUSTER_GROUP);
    for (size_t i = 0; consumers && consumers->type == REDIS_REPLY_ARRAY && i < consumers->elements; i++) {
        const redisReply *k = consumers->element[i];
        redisReply *alive = redisCommand(c, "EXISTS %s%s", SHARED_NODE, redis_text(redis_field(k, "name")));
        fprintf(out, "  consumer %s: pending %lld, idle %lld ms%s\n", redis_text(redis_field(k, "name")),
                redis_number(redis_field(k, "pending")), redis_number(redis_field(k, "idle")),
                alive && alive->type == REDIS_REPLY_INTEGER && alive->integer ? "" : " (not live)");
        freeReplyObject(alive);
    }
    freeReplyObject(consumers);
}

int cluster_command(int argc, char **argv, FILE *out)
{
    const char *url = NULL;
    if (argc < 1 || strcmp(argv[0], "status"))
        return usage("the one verb is status");
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--redis") && i + 1 < argc)
            url = argv[++i];
        else
            return usage("unknown or incomplete option");
    if (!url)
        return usage("--redis is needed");
    RedisAddress a;
    char err[200];
    if (!redis_url_parse(url, &a, err, sizeof err))
        return usage(err);
    redisContext *c = redis_connect_sync(&a, err, sizeof err);
    if (!c) {
        fprintf(stderr, "feelfish cluster: %s\n", err);
        return 1;
    }
    fprintf(out, "redis %s:%d/%d\n", a.host, a.port, a.db);
    print_nodes(c, out);
    print_stream(c, out, CLUSTER_STREAM, "jobs");
    print_stream(c, out, CLUSTER_QUICK_STREAM, "the quick lane's jobs");
    redisFree(c);
    return 0;
}
