/* PGN reading (pgn_write.c writes). The reader tokenizes a stream (file or string), replays each game's
 * moves against the rules, and on a bad game records why, skips to the next game and goes on. */
#include "pgn.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fen.h"
#include "text.h"
#include "../core/movegen.h"

#define PGN_MAX_TOKEN (64 * 1024) /* longer comments are cut, not grown without bound */

typedef enum {
    TOK_EOF,
    TOK_TAG_OPEN,
    TOK_TAG_CLOSE,
    TOK_STRING,
    TOK_COMMENT,
    TOK_LPAREN,
    TOK_RPAREN,
    TOK_NAG,
    TOK_MOVE_NUMBER,
    TOK_RESULT,
    TOK_SYMBOL,
    TOK_JUNK,
    TOK_UNCLOSED_COMMENT,
} TokenType;

struct PgnReader {
    FILE *file;
    const char *text;
    size_t pos;
    int line;
    int pushed[8], pushed_count; /* characters read ahead and given back, the last first */
    bool at_line_start;
    TokenType pushed_tok; /* TOK_EOF: none (a pushed EOF is never needed) */
    bool has_pushed_tok;
    int tok_line;
    char *tok;
    size_t tok_len, tok_cap;
    int tok_dots; /* periods after a move number: 1 for "12.", 3 for "12..." */
    Position *pos_buf;
};

static char *dup_string(const char *s)
{
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (!d)
        abort();
    memcpy(d, s, n + 1);
    return d;
}

/* ---- character input ---- */

static int raw_get(PgnReader *r)
{
    if (r->file)
        return fgetc(r->file);
    return r->text[r->pos] ? (unsigned char)r->text[r->pos++] : EOF;
}

static int get_char(PgnReader *r)
{
    int c = r->pushed_count ? r->pushed[--r->pushed_count] : raw_get(r);
    if (c == '\n')
        r->line++;
    return c;
}

static void unget_char(PgnReader *r, int c)
{
    if (c == '\n')
        r->line--;
    if (r->pushed_count < (int)(sizeof r->pushed / sizeof r->pushed[0]))
        r->pushed[r->pushed_count++] = c;
}

/* "½-½", as some programs write a draw (read as 1/2-1/2, in the moves and the Result tag). */
static const char DrawInHalves[] = "\xC2\xBD-\xC2\xBD";

/* Whether the next characters are `rest` (consumed if so, given back if not). */
static bool next_chars_are(PgnReader *r, const char *rest)
{
    int got[8], n = 0; /* rest: at most 7 characters */
    for (; rest[n]; n++)
        if ((got[n] = get_char(r)) != (unsigned char)rest[n]) {
            for (int k = n; k >= 0; k--)
                unget_char(r, got[k]);
            return false;
        }
    return true;
}

PgnReader *pgn_reader_open(FILE *f)
{
    PgnReader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->pos_buf = malloc(sizeof *r->pos_buf);
    if (!r->pos_buf) {
        free(r);
        return NULL;
    }
    r->file = f;
    r->line = 1;
    r->at_line_start = true;
    return r;
}

PgnReader *pgn_reader_open_string(const char *text)
{
    PgnReader *r = pgn_reader_open(NULL);
    if (r)
        r->text = text;
    return r;
}

void pgn_reader_close(PgnReader *r)
{
    if (!r)
        return;
    free(r->tok);
    free(r->pos_buf);
    free(r);
}

/* ---- tokens ---- */

/* The token is always a string, even an empty one (an empty `;` comment is a token too). */
static void tok_clear(PgnReader *r)
{
    if (!r->tok) {
        r->tok = malloc(128);
        if (!r->tok)
            abort();
        r->tok_cap = 128;
    }
    r->tok_len = 0;
    r->tok[0] = 0;
}

static void tok_add(PgnReader *r, int c)
{
    if (r->tok_len + 2 > r->tok_cap) {
        if (r->tok_cap >= PGN_MAX_TOKEN)
            return;
        size_t cap = r->tok_cap ? r->tok_cap * 2 : 128;
        char *t = realloc(r->tok, cap);
        if (!t)
            abort();
        r->tok = t;
        r->tok_cap = cap;
    }
    r->tok[r->tok_len++] = (char)c;
    r->tok[r->tok_len] = 0;
}

static bool valid_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (!len || i + len > n)
            return false;
        for (size_t k = 1; k < len; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
        i += len;
    }
    return true;
}

/* Text that is not UTF-8 is taken as Latin-1 (common in old PGN files) and converted. */
static void tok_make_utf8(PgnReader *r)
{
    if (valid_utf8((const unsigned char *)r->tok, r->tok_len))
        return;
    size_t n = r->tok_len;
    char *copy = malloc(n + 1);
    if (!copy)
        abort();
    memcpy(copy, r->tok, n + 1);
    tok_clear(r);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)copy[i];
        if (c < 0x80)
            tok_add(r, c);
        else {
            tok_add(r, 0xC0 | (c >> 6));
            tok_add(r, 0x80 | (c & 0x3F));
        }
    }
    free(copy);
}

static bool is_symbol_char(int c) { return isalnum(c) || strchr("_+#=:-/!?", c) != NULL; }

static TokenType next_token(PgnReader *r)
{
    if (r->has_pushed_tok) {
        r->has_pushed_tok = false;
        return r->pushed_tok;
    }
    tok_clear(r);
    for (;;) {
        int c = get_char(r);
        bool line_start = r->at_line_start;
        r->at_line_start = c == '\n';
        if (c == EOF)
            return TOK_EOF;
        if (isspace(c))
            continue;
        /* White space too: a byte order mark (a file's start, or files joined), a no-break space (text
         * copied from a web page), periods apart from a move number ("2. ... Nc6") and an ellipsis
         * ("2… Nc6"). */
        if ((c == 0xEF && next_chars_are(r, "\xBB\xBF")) || (c == 0xC2 && next_chars_are(r, "\xA0")) || c == '.' ||
            (c == 0xE2 && next_chars_are(r, "\x80\xA6"))) {
            r->at_line_start = line_start;
            continue;
        }
        r->tok_line = r->line;
        if (c == '%' && line_start) { /* escape line */
            while ((c = get_char(r)) != EOF && c != '\n')
                ;
            r->at_line_start = true;
            continue;
        }
        switch (c) {
        case '[': return TOK_TAG_OPEN;
        case ']': return TOK_TAG_CLOSE;
        case '(': return TOK_LPAREN;
        case ')': return TOK_RPAREN;
        case '{':
            while ((c = get_char(r)) != EOF && c != '}')
                tok_add(r, c);
            tok_make_utf8(r);
            return c == '}' ? TOK_COMMENT : TOK_UNCLOSED_COMMENT;
        case ';':
            while ((c = get_char(r)) != EOF && c != '\n')
                tok_add(r, c);
            r->at_line_start = true;
            tok_make_utf8(r);
            return TOK_COMMENT;
        case '"':
            while ((c = get_char(r)) != EOF && c != '"' && c != '\n') {
                if (c == '\\') {
                    int d = get_char(r);
                    if (d == '"' || d == '\\')
                        c = d;
                    else
                        unget_char(r, d);
                }
                tok_add(r, c);
            }
            tok_make_utf8(r);
            return c == '"' ? TOK_STRING : TOK_JUNK;
        case '$':
            while ((c = get_char(r)) != EOF && isdigit(c))
                tok_add(r, c);
            unget_char(r, c);
            return r->tok_len ? TOK_NAG : TOK_JUNK;
        case '*': tok_add(r, c); return TOK_RESULT;
        default: break;
        }
        if (c == (unsigned char)DrawInHalves[0] && next_chars_are(r, DrawInHalves + 1)) {
            for (const char *d = "1/2-1/2"; *d; d++)
                tok_add(r, *d);
            return TOK_RESULT;
        }
        if (!is_symbol_char(c)) {
            tok_add(r, c); /* a character not of PGN: the whole of it when it is UTF-8, for the message */
            for (int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0; more > 0; more--) {
                int d = get_char(r);
                if (d == EOF || (d & 0xC0) != 0x80) {
                    unget_char(r, d);
                    break;
                }
                tok_add(r, d);
            }
            tok_make_utf8(r);
            return TOK_JUNK;
        }
        tok_add(r, c);
        while ((c = get_char(r)) != EOF && is_symbol_char(c))
            tok_add(r, c);
        if (c == '.' && !strcmp(r->tok, "e") && next_chars_are(r, "p.")) { /* "exd6 e.p.": nothing more */
            tok_clear(r);
            continue;
        }
        bool digits = strspn(r->tok, "0123456789") == r->tok_len;
        r->tok_dots = 0;
        if (digits && c == '.') {
            r->tok_dots = 1;
            while ((c = get_char(r)) == '.')
                r->tok_dots++;
            unget_char(r, c);
            return TOK_MOVE_NUMBER;
        }
        unget_char(r, c);
        if (!strcmp(r->tok, "1-0") || !strcmp(r->tok, "0-1") || !strcmp(r->tok, "1/2-1/2"))
            return TOK_RESULT;
        return digits ? TOK_MOVE_NUMBER : TOK_SYMBOL;
    }
}

static void push_token(PgnReader *r, TokenType t)
{
    r->pushed_tok = t;
    r->has_pushed_tok = true;
}

/* ---- games ---- */

void pgn_game_free(PgnGame *g)
{
    for (int i = 0; i < g->tag_count; i++) {
        free(g->tags[i].name);
        free(g->tags[i].value);
    }
    for (int i = 0; i < g->move_count; i++) {
        free(g->moves[i].comment);
        free(g->moves[i].variations);
    }
    free(g->tags);
    free(g->moves);
    free(g->start_fen);
    free(g->comment);
    memset(g, 0, sizeof *g);
}

const char *pgn_tag(const PgnGame *g, const char *name)
{
    for (int i = 0; i < g->tag_count; i++)
        if (!strcmp(g->tags[i].name, name))
            return g->tags[i].value;
    return NULL;
}

void pgn_game_add_tag(PgnGame *g, const char *name, const char *value)
{
    if (g->tag_count == g->tag_capacity) {
        g->tag_capacity = g->tag_capacity ? g->tag_capacity * 2 : 16;
        g->tags = realloc(g->tags, (size_t)g->tag_capacity * sizeof *g->tags);
        if (!g->tags)
            abort();
    }
    g->tags[g->tag_count].name = dup_string(name);
    g->tags[g->tag_count].value = dup_string(value);
    g->tag_count++;
}

PgnMove *pgn_game_add_move(PgnGame *g)
{
    if (g->move_count == g->move_capacity) {
        g->move_capacity = g->move_capacity ? g->move_capacity * 2 : 128;
        g->moves = realloc(g->moves, (size_t)g->move_capacity * sizeof *g->moves);
        if (!g->moves)
            abort();
    }
    PgnMove *m = &g->moves[g->move_count++];
    memset(m, 0, sizeof *m);
    return m;
}

/* Appends text to a comment, joining several comments with a space. */
static void append_text(char **dst, const char *text)
{
    size_t old = *dst ? strlen(*dst) : 0, n = strlen(text);
    char *s = realloc(*dst, old + n + 2);
    if (!s)
        abort();
    if (old)
        s[old++] = ' ';
    memcpy(s + old, text, n + 1);
    *dst = s;
}

static void add_nag(PgnMove *m, int nag)
{
    if (m && m->nag_count < 4 && nag >= 0 && nag <= 255)
        m->nags[m->nag_count++] = (uint8_t)nag;
}

bool pgn_start_position(const PgnGame *g, Position *p, char *msg, size_t msg_size)
{
    FenError e = fen_read(p, g->start_fen ? g->start_fen : FEN_STARTPOS, msg, msg_size);
    return e == FEN_OK;
}

/* Comment text without leading/trailing white space and with runs of white space folded. */
static void fold_space(char *s)
{
    char *o = s;
    bool space = true;
    for (char *c = s; *c; c++) {
        if (isspace((unsigned char)*c)) {
            if (!space)
                *o++ = ' ';
            space = true;
        } else {
            *o++ = *c;
            space = false;
        }
    }
    if (o > s && o[-1] == ' ')
        o--;
    *o = 0;
}

/* Reads the tokens of a variation (after its '('), rendering them as PGN text into out. */
static bool read_variation(PgnReader *r, Buf *out, char *err, size_t err_size)
{
    int depth = 1;
    buf_puts(out, out->len ? " (" : "(");
    bool first = true;
    for (;;) {
        TokenType t = next_token(r);
        switch (t) {
        case TOK_EOF:
            snprintf(err, err_size, "line %d: variation not closed before the end of the file", r->line);
            return false;
        case TOK_LPAREN:
            depth++;
            buf_puts(out, first ? "(" : " (");
            first = true;
            continue;
        case TOK_RPAREN:
            buf_puts(out, ")");
            first = false;
            if (--depth == 0)
                return true;
            continue;
        case TOK_UNCLOSED_COMMENT:
            snprintf(err, err_size, "line %d: comment '{' is not closed with '}' before the end", r->tok_line);
            return false;
        case TOK_TAG_OPEN:
            snprintf(err, err_size, "line %d: variation not closed before the next game's tags", r->tok_line);
            push_token(r, t); /* the next game starts here */
            return false;
        case TOK_TAG_CLOSE:
        case TOK_STRING:
        case TOK_JUNK:
            snprintf(err, err_size, "line %d: unexpected '%.20s' inside a variation", r->tok_line,
                     t == TOK_TAG_CLOSE ? "]" : r->tok);
            return false;
        default: break;
        }
        if (!first)
            buf_puts(out, " ");
        first = false;
        if (t == TOK_COMMENT) {
            fold_space(r->tok);
            buf_printf(out, "{%s}", r->tok);
        } else if (t == TOK_NAG)
            buf_printf(out, "$%s", r->tok);
        else if (t == TOK_MOVE_NUMBER)
            buf_printf(out, "%s%s", r->tok, r->tok_dots >= 3 ? "..." : ".");
        else
            buf_puts(out, r->tok);
    }
}

/* Skips the rest of a bad game: up to its result (outside variations) or the next tag section. */
static void skip_game(PgnReader *r)
{
    int depth = 0;
    for (;;) {
        TokenType t = next_token(r);
        if (t == TOK_EOF)
            return;
        if (t == TOK_LPAREN)
            depth++;
        else if (t == TOK_RPAREN && depth > 0)
            depth--;
        else if (t == TOK_RESULT && depth == 0)
            return;
        else if (t == TOK_TAG_OPEN) {
            push_token(r, t);
            return;
        }
    }
}

static PgnResult bad_game(PgnReader *r, PgnGame *g, bool skip)
{
    (void)g;
    if (skip)
        skip_game(r);
    return PGN_BAD_GAME;
}

/* Symbols written apart from their move: annotation glyphs and evaluation signs, as their NAGs. */
static const struct {
    const char *symbol;
    int nag;
} Signs[] = {{"!", 1},    {"?", 2},   {"!!", 3},   {"??", 4},   {"!?", 5},   {"?!", 6},  {"=", 10}, {"+=", 14},
             {"+/=", 14}, {"=+", 15}, {"=/+", 15}, {"+/-", 16}, {"-/+", 17}, {"+-", 18}, {"-+", 19}};

/* The comment token just read, its white space folded, appended to *dst (if anything is left). */
static void take_comment(PgnReader *r, char **dst)
{
    fold_space(r->tok);
    if (r->tok[0])
        append_text(dst, r->tok);
}

static int sign_nag(const char *symbol)
{
    for (size_t i = 0; i < sizeof Signs / sizeof Signs[0]; i++)
        if (!strcmp(symbol, Signs[i].symbol))
            return Signs[i].nag;
    return 0;
}

/* The game's result when its moves end without one: the Result tag's, if it gives one. */
static PgnResult ended_without_result(PgnGame *g)
{
    const char *tag = pgn_tag(g, "Result");
    if (tag && (!strcmp(tag, "1-0") || !strcmp(tag, "0-1") || !strcmp(tag, "1/2-1/2")))
        snprintf(g->result, sizeof g->result, "%s", tag);
    return PGN_GAME;
}

/* A Variant tag this reader plays: standard chess (Lichess's "From Position" is standard chess from a FEN). */
static bool standard_variant(const char *v)
{
    static const char *const Standard[] = {"standard", "from position", "fromposition", "normal", "chess"};
    for (size_t i = 0; i < sizeof Standard / sizeof Standard[0]; i++)
        if (!strcasecmp(v, Standard[i]))
            return true;
    return false;
}

PgnResult pgn_read_game(PgnReader *r, PgnGame *g, char *err, size_t err_size)
{
    memset(g, 0, sizeof *g);
    strcpy(g->result, "*");
    err[0] = 0;
    /* Comments before a game's tags (a program's banner, a ';' line, one after the last game's
     * result) are not that game's: dropped. Before moves without tags they are the game's comment. */
    TokenType t = next_token(r);
    for (; t == TOK_COMMENT; t = next_token(r))
        take_comment(r, &g->comment);
    if (t == TOK_EOF || t == TOK_TAG_OPEN) {
        free(g->comment);
        g->comment = NULL;
        if (t == TOK_EOF)
            return PGN_END;
    }
    g->line = r->tok_line;

    /* Tag pairs. */
    while (t == TOK_TAG_OPEN) {
        char name[64];
        if (next_token(r) != TOK_SYMBOL || r->tok_len >= sizeof name) {
            snprintf(err, err_size, "line %d: a tag needs a name after '['", r->tok_line);
            return bad_game(r, g, true);
        }
        strcpy(name, r->tok);
        if (next_token(r) != TOK_STRING) {
            snprintf(err, err_size, "line %d: tag %s needs a quoted value", r->tok_line, name);
            return bad_game(r, g, true);
        }
        bool half = !strcmp(name, "Result") && !strcmp(r->tok, DrawInHalves);
        pgn_game_add_tag(g, name, half ? "1/2-1/2" : r->tok);
        if (next_token(r) != TOK_TAG_CLOSE) {
            snprintf(err, err_size, "line %d: tag %s is not closed with ']'", r->tok_line, name);
            return bad_game(r, g, true);
        }
        t = next_token(r);
    }

    const char *variant = pgn_tag(g, "Variant");
    if (variant && !standard_variant(variant)) {
        snprintf(err, err_size, "line %d: the variant '%.40s' is not played here: standard chess only", g->line,
                 variant);
        push_token(r, t);
        return bad_game(r, g, true);
    }
    const char *fen = pgn_tag(g, "FEN");
    if (fen)
        g->start_fen = dup_string(fen);
    Position *p = r->pos_buf;
    char msg[200];
    if (!pgn_start_position(g, p, msg, sizeof msg)) {
        snprintf(err, err_size, "line %d: FEN tag: %s", g->line, msg);
        push_token(r, t);
        return bad_game(r, g, true);
    }

    bool any_movetext = false;
    for (;; t = next_token(r)) {
        PgnMove *last = g->move_count ? &g->moves[g->move_count - 1] : NULL;
        switch (t) {
        case TOK_EOF:
            if (!any_movetext && g->tag_count == 0 && !g->comment)
                return PGN_END;
            return ended_without_result(g); /* no termination marker: the game ends with the file */
        case TOK_TAG_OPEN:
            if (!any_movetext) {
                snprintf(err, err_size, "line %d: '[' where the moves should start", r->tok_line);
                return bad_game(r, g, true);
            }
            push_token(r, t); /* the next game starts without this one's result */
            return ended_without_result(g);
        case TOK_RESULT: snprintf(g->result, sizeof g->result, "%s", r->tok); return PGN_GAME;
        case TOK_COMMENT:
            take_comment(r, last ? &last->comment : &g->comment);
            any_movetext = true;
            break;
        case TOK_NAG: add_nag(last, atoi(r->tok)); break;
        case TOK_MOVE_NUMBER: any_movetext = true; break;
        case TOK_LPAREN: {
            if (!last) {
                snprintf(err, err_size, "line %d: a variation before any move", r->tok_line);
                return bad_game(r, g, true);
            }
            Buf v = {last->variations, last->variations ? strlen(last->variations) : 0,
                     last->variations ? strlen(last->variations) + 1 : 0};
            bool ok = read_variation(r, &v, err, err_size);
            last->variations = v.s;
            if (!ok)
                return bad_game(r, g, true);
            break;
        }
        case TOK_SYMBOL: {
            any_movetext = true;
            int sign = sign_nag(r->tok);
            if (sign) { /* "e4 !?", "Nf3 +/-" */
                add_nag(last, sign);
                break;
            }
            char token[sizeof last->input];
            snprintf(token, sizeof token, "%s", r->tok);
            bool ambiguous = false;
            Move m = r->tok_len < sizeof token ? san_read_ambiguous(p, token, &ambiguous) : MOVE_NONE;
            if (m == MOVE_NONE) {
                char fen_buf[FEN_BUFFER_SIZE];
                snprintf(err, err_size, "line %d: '%.20s' is %s at move %d%s in %s", r->tok_line, r->tok,
                         ambiguous ? "ambiguous (more than one piece can make it)" : "not a legal move",
                         1 + p->game_ply / 2, p->side == WHITE ? "" : "...", fen_write(p, fen_buf));
                return bad_game(r, g, true);
            }
            PgnMove *pm = pgn_game_add_move(g);
            pm->move = m;
            snprintf(pm->input, sizeof pm->input, "%s", token);
            san_write(p, m, pm->san);
            /* Annotation glyphs written after the move become NAGs. */
            size_t len = strlen(token);
            size_t k = len;
            while (k && (token[k - 1] == '!' || token[k - 1] == '?'))
                k--;
            int glyph = len > k ? sign_nag(token + k) : 0;
            if (glyph)
                add_nag(pm, glyph);
            if (p->stack_len > POSITION_STACK_SIZE / 2)
                position_trim_history(p);
            position_make_move(p, m);
            break;
        }
        case TOK_UNCLOSED_COMMENT:
            snprintf(err, err_size, "line %d: comment '{' is not closed with '}' before the end", r->tok_line);
            return bad_game(r, g, false);
        case TOK_RPAREN:
        case TOK_TAG_CLOSE:
        case TOK_STRING:
        case TOK_JUNK:
        default:
            snprintf(err, err_size, "line %d: unexpected '%.20s' in the moves", r->tok_line,
                     t == TOK_RPAREN      ? ")"
                     : t == TOK_TAG_CLOSE ? "]"
                                          : r->tok);
            return bad_game(r, g, true);
        }
    }
}
