/* /metrics in Prometheus text format: requests by route and status, a latency histogram, jobs,
 * nodes searched and WebSocket counters. Loop thread only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../jobs/jobs.h"
#include "../net/ws.h"
#include "../bot/bot.h"
#include "../domain/games.h"
#include "../domain/shared.h"
#include "../store/store.h"
#include "quota.h"
#include "reply.h"
#include "routes.h"

/* ---- request counters for /metrics (loop thread) ---- */

#define STATUS_SLOTS 17
static const int CountedStatus[STATUS_SLOTS] = {200, 201, 202, 204, 304, 400, 401, 403, 404,
                                                405, 409, 413, 415, 429, 431, 500, 503};
static unsigned long long RouteHits[32][STATUS_SLOTS + 1];
static unsigned long long LatencyBuckets[12];
static double LatencySum;
static unsigned long long LatencyCount;
static const double LatencyBounds[11] = {1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 5000};

void metrics_count_request(const Request *r)
{
    int slot = STATUS_SLOTS;
    for (int i = 0; i < STATUS_SLOTS; i++)
        if (CountedStatus[i] == r->status)
            slot = i;
    RouteHits[routes_index(r)][slot]++;
    double ms = (double)uv_hrtime() / 1e6 - r->start_ms;
    int b = 0;
    while (b < 11 && ms > LatencyBounds[b])
        b++;
    LatencyBuckets[b]++;
    LatencySum += ms;
    LatencyCount++;
}

void metrics_route(Request *r, const char *param)
{
    (void)param;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        api_reply_fail(r, 503, "overloaded", NULL, "out of memory");
        return;
    }
    fprintf(f, "# HELP feelfish_http_requests_total HTTP requests by route and status.\n"
               "# TYPE feelfish_http_requests_total counter\n");
    for (int i = 0; i <= RouteCount; i++)
        for (int s = 0; s <= STATUS_SLOTS; s++)
            if (RouteHits[i][s]) {
                char status[8] = "other";
                if (s < STATUS_SLOTS)
                    snprintf(status, sizeof status, "%d", CountedStatus[s]);
                fprintf(f, "feelfish_http_requests_total{route=\"%s %s\",status=\"%s\"} %llu\n",
                        i < RouteCount ? Routes[i].method : "any", i < RouteCount ? Routes[i].path : "other", status,
                        RouteHits[i][s]);
            }
    fprintf(f, "# HELP feelfish_http_request_duration_ms HTTP request latency.\n"
               "# TYPE feelfish_http_request_duration_ms histogram\n");
    unsigned long long cumulative = 0;
    for (int b = 0; b < 11; b++) {
        cumulative += LatencyBuckets[b];
        fprintf(f, "feelfish_http_request_duration_ms_bucket{le=\"%g\"} %llu\n", LatencyBounds[b], cumulative);
    }
    cumulative += LatencyBuckets[11];
    fprintf(f, "feelfish_http_request_duration_ms_bucket{le=\"+Inf\"} %llu\n", cumulative);
    fprintf(f, "feelfish_http_request_duration_ms_sum %.3f\nfeelfish_http_request_duration_ms_count %llu\n", LatencySum,
            LatencyCount);
    JobsStats st;
    jobs_stats(&st);
    fprintf(f, "# TYPE feelfish_jobs gauge\nfeelfish_jobs{state=\"queued\"} %d\nfeelfish_jobs{state=\"running\"} %d\n",
            st.queued, st.busy + st.quick_busy);
    fprintf(f,
            "# TYPE feelfish_jobs_finished_total counter\n"
            "feelfish_jobs_finished_total{status=\"done\"} %llu\n"
            "feelfish_jobs_finished_total{status=\"cancelled\"} %llu\n"
            "feelfish_jobs_finished_total{status=\"failed\"} %llu\n",
            st.done, st.cancelled, st.failed);
    fprintf(f, "# TYPE feelfish_nodes_searched_total counter\nfeelfish_nodes_searched_total %llu\n", st.nodes);
    StoreHealth sh;
    store_health(&sh);
    fprintf(f,
            "# HELP feelfish_storage_writing 1 while the database takes writes, 0 when its last batch failed\n"
            "# TYPE feelfish_storage_writing gauge\nfeelfish_storage_writing %d\n"
            "# TYPE feelfish_storage_commits_total counter\nfeelfish_storage_commits_total %llu\n"
            "# TYPE feelfish_storage_failed_batches_total counter\nfeelfish_storage_failed_batches_total %llu\n"
            "# TYPE feelfish_database_size_bytes gauge\nfeelfish_database_size_bytes %lld\n",
            sh.writing, sh.commits, sh.failures, sh.size_bytes);
    fprintf(f,
            "# HELP feelfish_games_in_memory games held in memory (the rest are read back when asked for)\n"
            "# TYPE feelfish_games_in_memory gauge\nfeelfish_games_in_memory %d\n",
            games_in_memory());
    BotStatus bot;
    bot_status(&bot);
    if (bot.running || bot.account[0])
        fprintf(f,
                "# TYPE feelfish_bot_connected gauge\nfeelfish_bot_connected %d\n"
                "# TYPE feelfish_bot_games gauge\nfeelfish_bot_games %d\n"
                "# TYPE feelfish_bot_games_finished_total counter\n"
                "feelfish_bot_games_finished_total{result=\"win\"} "
                "%d\nfeelfish_bot_games_finished_total{result=\"loss\"} %d\n"
                "feelfish_bot_games_finished_total{result=\"draw\"} %d\n"
                "feelfish_bot_games_finished_total{result=\"aborted\"} %d\n"
                "# TYPE feelfish_bot_moves_total counter\nfeelfish_bot_moves_total %llu\n"
                "# HELP feelfish_bot_rate_limited_total 429 answers from Lichess\n"
                "# TYPE feelfish_bot_rate_limited_total counter\nfeelfish_bot_rate_limited_total %llu\n"
                "# TYPE feelfish_bot_reconnects_total counter\nfeelfish_bot_reconnects_total %llu\n",
                bot.connected, bot.games_now, bot.wins, bot.losses, bot.draws, bot.aborted, bot.moves, bot.rate_limited,
                bot.reconnects);
    WsStats ws;
    ws_stats(&ws);
    fprintf(f, "# TYPE feelfish_websocket_clients gauge\nfeelfish_websocket_clients %d\n", ws.clients);
    fprintf(f, "# TYPE feelfish_websocket_frames_sent_total counter\nfeelfish_websocket_frames_sent_total %llu\n",
            ws.frames_sent);
    fprintf(f,
            "# HELP feelfish_websocket_frames_coalesced_total info frames replaced by newer ones before a slow client"
            " read them\n# TYPE feelfish_websocket_frames_coalesced_total counter\n"
            "feelfish_websocket_frames_coalesced_total %llu\n",
            ws.frames_coalesced);
    fprintf(f,
            "# HELP feelfish_websocket_overflows_total clients closed (1008) because they did not read their frames\n"
            "# TYPE feelfish_websocket_overflows_total counter\nfeelfish_websocket_overflows_total %llu\n"
            "# HELP feelfish_websocket_refused_total handshakes refused for a foreign Origin or Host\n"
            "# TYPE feelfish_websocket_refused_total counter\nfeelfish_websocket_refused_total %llu\n",
            ws.overflows, ws.refused);
    fprintf(f,
            "# HELP feelfish_websocket_full_total handshakes refused past --connections-max or --connections-per-ip\n"
            "# TYPE feelfish_websocket_full_total counter\nfeelfish_websocket_full_total %llu\n"
            "# HELP feelfish_websocket_idle_closed_total connections closed after --ws-idle-timeout with no frame\n"
            "# TYPE feelfish_websocket_idle_closed_total counter\nfeelfish_websocket_idle_closed_total %llu\n"
            "# HELP feelfish_http_timeouts_total connections closed for a slow request (408) or an idle keep-alive\n"
            "# TYPE feelfish_http_timeouts_total counter\nfeelfish_http_timeouts_total %llu\n",
            ws.full, ws.idle_closed, http_timeouts());
    quota_metrics(f);
    if (shared_on()) {
        shared_metrics(f);
        fprintf(f,
                "# HELP feelfish_quota_cluster_syncs_total clients' request counts merged with the cluster's (--rate)\n"
                "# TYPE feelfish_quota_cluster_syncs_total counter\nfeelfish_quota_cluster_syncs_total %llu\n",
                quota_synced());
    }
    fclose(f);
    http_reply(r, 200, "text/plain; version=0.0.4", buf, len);
    free(buf);
}
