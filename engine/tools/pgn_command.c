/* `feelfish pgn FILE.pgn [--check] [--quiet]`: reads a file, replays every game, reports bad games
 * and, with --check, verifies that SAN written back equals the input and that games round-trip. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../notation/pgn.h"
#include "tools.h"

/* The input token as SAN would write it: glyphs dropped, 0-0 as O-O, e8Q as e8=Q, ':' as 'x'.
 * Mate marks are compared as checks ('#' -> '+') on both sides: many sources write '+' for mate. */
static void normalise_san(const char *in, char *out, size_t size)
{
    char t[32];
    snprintf(t, sizeof t, "%s", in);
    size_t n = strlen(t);
    while (n && (t[n - 1] == '!' || t[n - 1] == '?'))
        t[--n] = 0;
    for (char *c = t; *c; c++) {
        if (*c == ':')
            *c = 'x';
        if (*c == '#')
            *c = '+';
    }
    if (!strncmp(t, "0-0", 3))
        for (char *c = t; *c && *c != '+' && *c != '#'; c++)
            if (*c == '0')
                *c = 'O';
    /* Promotion without '=': a pawn move ending in rank 1/8 then a piece letter. */
    char *promo = NULL;
    for (char *c = t; *c; c++)
        if ((c[0] == '8' || c[0] == '1') && c[1] && strchr("NBRQ", c[1]) && c > t && c[-1] >= 'a' && c[-1] <= 'h' &&
            islower((unsigned char)t[0]))
            promo = c + 1;
    if (promo) {
        memmove(promo + 1, promo, strlen(promo) + 1);
        *promo = '=';
    }
    snprintf(out, size, "%s", t);
}

static bool same_moves(const PgnGame *a, const PgnGame *b)
{
    if (a->move_count != b->move_count)
        return false;
    for (int i = 0; i < a->move_count; i++)
        if (a->moves[i].move != b->moves[i].move)
            return false;
    return true;
}

int pgn_command(int argc, char **argv, FILE *out)
{
    const char *path = NULL;
    bool check = false, quiet = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--check"))
            check = true;
        else if (!strcmp(argv[i], "--quiet"))
            quiet = true;
        else if (!path)
            path = argv[i];
        else {
            fprintf(stderr, "pgn: unexpected argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "usage: feelfish pgn FILE.pgn [--check] [--quiet]\n");
        return 2;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "pgn: cannot open %s\n", path);
        return 2;
    }
    PgnReader *r = pgn_reader_open(f);
    long games = 0, skipped = 0, moves = 0, san_mismatch = 0, roundtrip_fail = 0;
    char err[512];
    PgnGame g;
    PgnResult res;
    while ((res = pgn_read_game(r, &g, err, sizeof err)) != PGN_END) {
        if (res == PGN_BAD_GAME) {
            skipped++;
            fprintf(out, "skipped game at line %d: %s\n", g.line, err);
            pgn_game_free(&g);
            continue;
        }
        games++;
        moves += g.move_count;
        if (check) {
            for (int i = 0; i < g.move_count; i++) {
                char norm[32], ours[32];
                normalise_san(g.moves[i].input, norm, sizeof norm);
                normalise_san(g.moves[i].san, ours, sizeof ours);
                if (strcmp(norm, ours)) {
                    san_mismatch++;
                    if (!quiet)
                        fprintf(out, "game at line %d, ply %d: read '%s', writes '%s'\n", g.line, i + 1,
                                g.moves[i].input, g.moves[i].san);
                }
            }
            char *text = pgn_write(&g);
            PgnReader *r2 = pgn_reader_open_string(text);
            PgnGame g2;
            char err2[512];
            if (pgn_read_game(r2, &g2, err2, sizeof err2) != PGN_GAME || !same_moves(&g, &g2)) {
                roundtrip_fail++;
                fprintf(out, "game at line %d: written PGN does not read back the same: %s\n", g.line, err2);
            } else {
                char *text2 = pgn_write(&g2);
                if (strcmp(text, text2)) {
                    roundtrip_fail++;
                    fprintf(out, "game at line %d: writing twice gives different text\n", g.line);
                }
                free(text2);
            }
            pgn_game_free(&g2);
            pgn_reader_close(r2);
            free(text);
        }
        pgn_game_free(&g);
    }
    pgn_reader_close(r);
    fclose(f);
    fprintf(out, "games: %ld read, %ld skipped, %ld moves replayed\n", games, skipped, moves);
    if (check)
        fprintf(out, "check: %ld SAN mismatches, %ld round-trip failures\n", san_mismatch, roundtrip_fail);
    return (check && (san_mismatch || roundtrip_fail)) ? 1 : 0;
}
