/* PGN writing: a game in export format (the seven tag roster first, lines within 80 columns), or in
 * Lichess's annotated style (glyphs on the moves, each comment one token). */
#include "pgn.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

typedef struct {
    Buf b;
    int col;
} Writer;

/* Adds one token, breaking the line first if it would pass 80 columns. */
static void write_token(Writer *w, const char *tok)
{
    size_t n = strlen(tok);
    if (w->col > 0 && w->col + 1 + (int)n > 80) {
        buf_puts(&w->b, "\n");
        w->col = 0;
    } else if (w->col > 0) {
        buf_puts(&w->b, " ");
        w->col++;
    }
    buf_puts(&w->b, tok);
    w->col += (int)n;
}

/* Writes free text (a comment or a variation) word by word so long text wraps too. */
static void write_words(Writer *w, const char *open, const char *text, const char *close)
{
    char word[512];
    size_t n = 0;
    bool first = true;
    const char *c = text;
    for (;;) {
        if (*c && !isspace((unsigned char)*c) && n + 1 < sizeof word - 2) {
            word[n++] = *c++;
            continue;
        }
        if (n || (first && !*c)) {
            word[n] = 0;
            char tok[sizeof word + 8];
            snprintf(tok, sizeof tok, "%s%s%s", first ? open : "", word, *c ? "" : close);
            write_token(w, tok);
            first = false;
            n = 0;
        }
        if (!*c)
            break;
        if (isspace((unsigned char)*c))
            c++;
    }
}

static void write_tag(Buf *b, const char *name, const char *value)
{
    buf_printf(b, "[%s \"", name);
    for (const char *c = value; *c; c++) {
        if (*c == '"' || *c == '\\')
            buf_put(b, "\\", 1);
        buf_put(b, c, 1);
    }
    buf_puts(b, "\"]\n");
}

char *pgn_write(const PgnGame *g)
{
    static const char *Roster[7] = {"Event", "Site", "Date", "Round", "White", "Black", "Result"};
    static const char *Defaults[7] = {"?", "?", "????.??.??", "?", "?", "?", "*"};
    Writer w = {{0}, 0};
    for (int i = 0; i < 7; i++) {
        const char *v = pgn_tag(g, Roster[i]);
        if (i == 6)
            v = g->result;
        write_tag(&w.b, Roster[i], v ? v : Defaults[i]);
    }
    if (g->start_fen) {
        write_tag(&w.b, "SetUp", "1");
        write_tag(&w.b, "FEN", g->start_fen);
    }
    for (int i = 0; i < g->tag_count; i++) {
        bool derived = !strcmp(g->tags[i].name, "SetUp") || !strcmp(g->tags[i].name, "FEN");
        for (int k = 0; k < 7; k++)
            derived |= !strcmp(g->tags[i].name, Roster[k]);
        if (!derived)
            write_tag(&w.b, g->tags[i].name, g->tags[i].value);
    }
    buf_puts(&w.b, "\n");

    int ply = 0;
    bool black_first = false;
    if (g->start_fen) {
        /* The move number and side come from the FEN. */
        const char *f = g->start_fen;
        const char *side = strchr(f, ' ');
        black_first = side && side[1] == 'b';
        int full = 1;
        const char *last_space = strrchr(f, ' ');
        int n = 0, spaces = 0;
        for (const char *c = f; *c; c++)
            spaces += *c == ' ';
        if (spaces >= 5 && last_space && sscanf(last_space + 1, "%d", &n) == 1 && n > 0)
            full = n;
        ply = 2 * (full - 1) + black_first;
    }
    if (g->comment)
        write_words(&w, "{", g->comment, "}");
    bool need_number = true;
    for (int i = 0; i < g->move_count; i++, ply++) {
        const PgnMove *m = &g->moves[i];
        char num[24];
        if (ply % 2 == 0) {
            snprintf(num, sizeof num, "%d.", 1 + ply / 2);
            write_token(&w, num);
        } else if (need_number) {
            snprintf(num, sizeof num, "%d...", 1 + ply / 2);
            write_token(&w, num);
        }
        static const char *const Symbols[7] = {"", "!", "?", "!!", "??", "!?", "?!"};
        char token[SAN_STRING_SIZE + 8];
        int first_nag = 0;
        snprintf(token, sizeof token, "%s", m->san);
        if (g->lichess_style && m->nag_count && m->nags[0] >= 1 && m->nags[0] <= 6) {
            snprintf(token, sizeof token, "%s%s", m->san, Symbols[m->nags[0]]);
            first_nag = 1;
        }
        write_token(&w, token);
        need_number = false;
        for (int k = first_nag; k < m->nag_count; k++) {
            snprintf(num, sizeof num, "$%d", m->nags[k]);
            write_token(&w, num);
        }
        if (m->comment && g->lichess_style) {
            /* one token: a line never breaks inside a comment (nor inside "[%eval 0.85]") */
            size_t n = strlen(m->comment) + 5;
            char *c = malloc(n);
            if (c) {
                snprintf(c, n, "{ %s }", m->comment);
                write_token(&w, c);
                free(c);
            }
            need_number = true;
        } else if (m->comment) {
            write_words(&w, "{", m->comment, "}");
            need_number = true;
        }
        if (m->variations) {
            write_words(&w, "", m->variations, "");
            need_number = true;
        }
    }
    write_token(&w, g->result);
    buf_puts(&w.b, "\n");
    return w.b.s;
}
