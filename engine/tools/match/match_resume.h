/* `feelfish match --resume`: the games an earlier run of the same match already wrote to its --pgn
 * file, so a long match stopped at any instant (Ctrl-C, kill -9, the end of a session) goes on with
 * the games still missing instead of starting again. */
#ifndef FEELFISH_MATCH_RESUME_H
#define FEELFISH_MATCH_RESUME_H

#include <stdbool.h>
#include <stddef.h>

#include "match_config.h"

typedef struct {
    bool *done;       /* per game index (c->games of them): already in the file */
    int count;        /* games already played */
    MatchTally tally; /* their results and failures */
} MatchResume;

/* Reads c->pgn_path (a missing file: nothing played yet). Each game must be one this match plays:
 * its Event names the same limits, its Round is a game number up to --games, played once, with the
 * colours and the opening that game number has, by the engines named `names`. Unfinished games at
 * the file's end (the run was killed while writing one) are cut from it, and those games are played
 * again.
 * False with a one-line reason ("--resume: ...") when the file belongs to another match or cannot
 * be read; nothing is changed then. Free with match_resume_free either way. */
bool match_resume_read(const MatchConfig *c, const char *const names[2], MatchResume *r, char *err, size_t size);
void match_resume_free(MatchResume *r);

#endif
