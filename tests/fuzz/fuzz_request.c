/* An analysis request as the API reads it, over REST (a body) or WebSocket (an op): any bytes are
 * a JSON object or refused with bad_json, and any object is a job (with limits within the caps)
 * or refused with a stable code and a message. The first byte picks REST or WebSocket. */
#include <stdio.h>

#include "../../server/api/reply.h"
#include "../../server/api/request.h"
#include "../../server/base/log.h"
#include "../../server/domain/models.h"
#include "fuzz.h"

static ServerConfig Cfg;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    engine_init("magic");
    bool help;
    char err[300];
    if (!config_load(&Cfg, 0, NULL, &help, err, sizeof err))
        abort();
    snprintf(Cfg.db, sizeof Cfg.db, "%s", "build/fuzz/request.db");
    log_set_level("error");
    if (!models_init(&Cfg, err, sizeof err))
        abort();
    request_set_config(&Cfg);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    bool ws = data[0] & 1;
    ApiError e = {0};
    json_t *body = api_parse_json_text(&e, (const char *)data + 1, size - 1);
    if (!body) {
        if (e.status != 400 || strcmp(e.code, "bad_json"))
            abort();
        return 0;
    }
    Job *job = request_analysis(&e, body, ws);
    if (job) {
        const SearchLimits *l = &job->limits;
        if (l->depth > Cfg.max_depth || (long long)l->nodes > Cfg.max_nodes || l->movetime > Cfg.max_movetime ||
            l->multipv > Cfg.max_multipv || (!l->infinite && !l->movetime) || (l->infinite && !ws))
            abort(); /* a limit past the server's caps */
        job_release(job);
    } else if (e.status < 400 || e.status > 503 || !e.code[0] || !e.message[0])
        abort(); /* refused without a status, code or message */
    json_decref(body);
    return 0;
}
