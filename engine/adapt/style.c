/* The opponent-style classifier: features of a player's play (style.h says exactly how each is
 * read off the game), Naive Bayes counts with add-1 smoothing, the model's text file, and the
 * classification of a finished game or of a game in progress. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../notation/fen.h"
#include "../core/movegen.h"
#include "style.h"

const int StyleSampleMoves[STYLE_SAMPLE_NB] = {15, 20};
const int StyleFeatureValues[STYLE_FEATURE_NB] = {STYLE_FIRST_NB, STYLE_CASTLED_NB, 4, 4};
const bool StyleFeatureDecides[STYLE_FEATURE_NB] = {false, true, true, true};
const char *const StyleNames[STYLE_NB] = {"attacking", "positional", "mixed"};
const char *const StyleFeatureNames[STYLE_FEATURE_NB] = {"first_move", "castling", "pieces", "pawns"};

static const char *const FirstMoveNames[STYLE_FIRST_NB] = {"e4", "d4", "c4", "Nf3", "other(white)", "c5",
                                                           "e5", "e6", "c6", "Nf6", "d5",           "other(black)"};
static const char *const CastlingNames[STYLE_CASTLED_NB] = {"same", "opposite", "not_both"};
static const char *const CountNames[4] = {"0", "1", "2", "3+"};

#define MODEL_MAGIC "feelfish-style-model"
#define MODEL_VERSION 1

const char *style_value_name(StyleFeature f, int v)
{
    if (v < 0 || v >= StyleFeatureValues[f])
        return "?";
    switch (f) {
    case STYLE_F_FIRST_MOVE: return FirstMoveNames[v];
    case STYLE_F_CASTLING: return CastlingNames[v];
    default: return CountNames[v];
    }
}

char *style_json(Style s, const double posterior[STYLE_NB], const StyleFeatures *f, char *buf, size_t size)
{
    snprintf(buf, size,
             "{\"style\": \"%s\", \"posterior\": {\"%s\": %.9g, \"%s\": %.9g, \"%s\": %.9g}, "
             "\"features\": {\"firstMove\": \"%s\", \"castling\": \"%s\", \"pieces\": %d, \"pawns\": %d}}",
             StyleNames[s], StyleNames[0], posterior[0], StyleNames[1], posterior[1], StyleNames[2], posterior[2],
             style_value_name(STYLE_F_FIRST_MOVE, f->value[STYLE_F_FIRST_MOVE]),
             style_value_name(STYLE_F_CASTLING, f->value[STYLE_F_CASTLING]), f->pieces, f->pawns);
    return buf;
}

/* ---- Features ---------------------------------------------------------------------------- */

void style_track_init(StyleTrack *t)
{
    t->first[WHITE] = t->first[BLACK] = -1;
    t->castled[WHITE] = t->castled[BLACK] = 0;
}

static StyleFirstMove first_move_class(Color c, PieceType pt, Square to)
{
    static const struct {
        Color c;
        PieceType pt;
        Square to;
        StyleFirstMove value;
    } Table[] = {
        {WHITE, PAWN, E4, STYLE_FIRST_E4},    {WHITE, PAWN, D4, STYLE_FIRST_D4}, {WHITE, PAWN, C4, STYLE_FIRST_C4},
        {WHITE, KNIGHT, F3, STYLE_FIRST_NF3}, {BLACK, PAWN, C5, STYLE_FIRST_C5}, {BLACK, PAWN, E5, STYLE_FIRST_E5},
        {BLACK, PAWN, E6, STYLE_FIRST_E6},    {BLACK, PAWN, C6, STYLE_FIRST_C6}, {BLACK, KNIGHT, F6, STYLE_FIRST_NF6},
        {BLACK, PAWN, D5, STYLE_FIRST_D5},
    };
    for (size_t i = 0; i < sizeof Table / sizeof Table[0]; i++)
        if (Table[i].c == c && Table[i].pt == pt && Table[i].to == to)
            return Table[i].value;
    return c == WHITE ? STYLE_FIRST_WHITE_OTHER : STYLE_FIRST_BLACK_OTHER;
}

void style_track_move(StyleTrack *t, const Position *before, Move m)
{
    Color c = before->side;
    if (t->first[c] < 0)
        t->first[c] = (int8_t)first_move_class(c, piece_type(piece_on(before, move_from(m))), move_to(m));
    if (move_kind(m) == MOVE_CASTLING && !t->castled[c])
        t->castled[c] = square_file(move_to(m)) > square_file(move_from(m)) ? 1 : 2;
}

/* Squares beyond c's third rank, and past c's fourth rank. */
static Bitboard beyond_third(Color c)
{
    return c == WHITE ? ~(RANK_1_BB | RANK_2_BB | RANK_3_BB) : ~(RANK_6_BB | RANK_7_BB | RANK_8_BB);
}
static Bitboard past_fourth(Color c)
{
    return c == WHITE ? RANK_5_BB | RANK_6_BB | RANK_7_BB | RANK_8_BB : RANK_1_BB | RANK_2_BB | RANK_3_BB | RANK_4_BB;
}

void style_features(const Position *p, const StyleTrack *t, Color c, StyleFeatures *out)
{
    memset(out, 0, sizeof *out);
    out->color = c;
    out->ply = p->game_ply;
    out->fullmove = p->game_ply / 2;
    out->value[STYLE_F_FIRST_MOVE] = (uint8_t)(t->first[c] >= 0 ? t->first[c]
                                               : c == WHITE     ? STYLE_FIRST_WHITE_OTHER
                                                                : STYLE_FIRST_BLACK_OTHER);
    int us = t->castled[c], them = t->castled[color_flip(c)];
    out->value[STYLE_F_CASTLING] = (uint8_t)(!us || !them ? STYLE_CASTLED_NOT_BOTH
                                             : us == them ? STYLE_CASTLED_SAME
                                                          : STYLE_CASTLED_OPPOSITE);
    Bitboard pieces_bb =
        p->by_color[c] & (p->by_type[KNIGHT] | p->by_type[BISHOP] | p->by_type[ROOK] | p->by_type[QUEEN]);
    out->pieces = (uint8_t)popcount(pieces_bb & beyond_third(c));
    int kf = square_file(king_square(p, color_flip(c)));
    Bitboard files = file_bb(kf) | (kf > FILE_A ? file_bb(kf - 1) : 0) | (kf < FILE_H ? file_bb(kf + 1) : 0);
    out->pawns = (uint8_t)popcount(pieces(p, c, PAWN) & files & past_fourth(c));
    out->value[STYLE_F_PIECES] = out->pieces < 3 ? out->pieces : 3;
    out->value[STYLE_F_PAWNS] = out->pawns < 3 ? out->pawns : 3;
}

int style_game_samples(const Position *start, const Move *moves, int n, Color c, bool current, StyleFeatures *samples,
                       StyleFeatures *last)
{
    Position *p = malloc(sizeof *p);
    if (!p)
        return -1;
    position_copy_root(p, start);
    StyleTrack t;
    style_track_init(&t);
    int count = 0, next = 0;
    for (int i = 0;; i++) {
        /* Sample points already behind the start (a FEN late in a game) are never reached. */
        while (next < STYLE_SAMPLE_NB && 2 * StyleSampleMoves[next] < p->game_ply)
            next++;
        bool at_point = next < STYLE_SAMPLE_NB && 2 * StyleSampleMoves[next] == p->game_ply;
        if (at_point) {
            style_features(p, &t, c, &samples[count++]);
            next++;
        }
        if (i == n) {
            if (current && !at_point)
                style_features(p, &t, c, &samples[count++]);
            if (last)
                style_features(p, &t, c, last);
            break;
        }
        if (!movegen_is_legal(p, moves[i])) {
            count = -1;
            break;
        }
        style_track_move(&t, p, moves[i]);
        if (p->stack_len > POSITION_STACK_SIZE / 2)
            position_trim_history(p);
        position_make_move(p, moves[i]);
    }
    free(p);
    return count;
}

/* ---- The model --------------------------------------------------------------------------- */

void style_model_init(StyleModel *m) { memset(m, 0, sizeof *m); }

void style_model_add(StyleModel *m, Style s, const StyleFeatures *f)
{
    m->prior[s]++;
    for (int i = 0; i < STYLE_FEATURE_NB; i++)
        m->count[i][s][f->value[i]]++;
}

double style_model_prior(const StyleModel *m, Style s)
{
    if (m->decision[s])
        return (double)m->decision[s] / STYLE_DECISION_UNITS;
    double total = 0;
    for (int c = 0; c < STYLE_NB; c++)
        total += m->prior[c];
    return (m->prior[s] + 1.0) / (total + STYLE_NB);
}

double style_model_likelihood(const StyleModel *m, StyleFeature f, Style s, int v)
{
    return (m->count[f][s][v] + 1.0) / ((double)m->prior[s] + StyleFeatureValues[f]);
}

double style_model_log_likelihood(const StyleModel *m, Style s, const StyleFeatures *samples, int n)
{
    double ll = 0;
    for (int k = 0; k < n; k++)
        for (int f = 0; f < STYLE_FEATURE_NB; f++)
            if (StyleFeatureDecides[f])
                ll += log(style_model_likelihood(m, (StyleFeature)f, s, samples[k].value[f]));
    return ll;
}

Style style_model_classify(const StyleModel *m, const StyleFeatures *samples, int n, double posterior[STYLE_NB])
{
    double prior[STYLE_NB];
    for (int c = 0; c < STYLE_NB; c++)
        prior[c] = style_model_prior(m, (Style)c);
    return style_model_classify_with_prior(m, prior, samples, n, posterior);
}

Style style_model_classify_with_prior(const StyleModel *m, const double prior[STYLE_NB], const StyleFeatures *samples,
                                      int n, double posterior[STYLE_NB])
{
    double lp[STYLE_NB], best = -INFINITY;
    for (int c = 0; c < STYLE_NB; c++) {
        lp[c] = log(prior[c]) + style_model_log_likelihood(m, (Style)c, samples, n);
        if (lp[c] > best)
            best = lp[c];
    }
    double sum = 0;
    for (int c = 0; c < STYLE_NB; c++)
        sum += posterior[c] = exp(lp[c] - best);
    Style arg = STYLE_ATTACKING;
    for (int c = 0; c < STYLE_NB; c++) {
        posterior[c] /= sum;
        if (posterior[c] > posterior[arg])
            arg = (Style)c;
    }
    return arg;
}

/* ---- The model file ------------------------------------------------------------------------
 * feelfish-style-model 1
 * prior attacking: N positional: N mixed: N
 * decision_prior attacking: N positional: N mixed: N   (optional; fortieths adding up to 40)
 * first_move attacking: N x 12 positional: N x 12 mixed: N x 12
 * castling ... / pieces ... / pawns ...   (one table per line; '#' lines are comments) */

typedef struct {
    char *s;
    size_t len, cap;
} Text;

static void text_printf(Text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

char *style_model_format(const StyleModel *m)
{
    Text t = {0};
    text_printf(&t, "%s %d\n", MODEL_MAGIC, MODEL_VERSION);
    text_printf(&t, "# Naive Bayes opponent-style classifier (shared/spec/bayesian.md, section 5), built by\n"
                    "# `feelfish style-train`. Counts of samples; add-1 smoothing is applied when classifying.\n"
                    "# Samples per class:\n");
    text_printf(&t, "prior");
    for (int c = 0; c < STYLE_NB; c++)
        text_printf(&t, " %s: %u", StyleNames[c], m->prior[c]);
    text_printf(&t, "\n");
    if (m->decision[0]) {
        text_printf(&t,
                    "# The class prior used to decide, in fortieths: the one that maximises the mean recall of the\n"
                    "# three classes on the training games (not the collections' sizes):\n"
                    "decision_prior");
        for (int c = 0; c < STYLE_NB; c++)
            text_printf(&t, " %s: %u", StyleNames[c], m->decision[c]);
        text_printf(&t, "\n");
    }
    for (int f = 0; f < STYLE_FEATURE_NB; f++) {
        text_printf(&t, "# %s, per class, samples with each value:", StyleFeatureNames[f]);
        for (int v = 0; v < StyleFeatureValues[f]; v++)
            text_printf(&t, " %s", style_value_name((StyleFeature)f, v));
        text_printf(&t, "\n%s", StyleFeatureNames[f]);
        for (int c = 0; c < STYLE_NB; c++) {
            text_printf(&t, " %s:", StyleNames[c]);
            for (int v = 0; v < StyleFeatureValues[f]; v++)
                text_printf(&t, " %u", m->count[f][c][v]);
        }
        text_printf(&t, "\n");
    }
    return t.s;
}

/* Reads "class: n n n" groups from a line's tokens; count numbers per class. */
static bool parse_rows(char **tok, int ntok, int count, uint32_t rows[STYLE_NB][STYLE_VALUES_MAX], char *why,
                       size_t why_size)
{
    int want = STYLE_NB * (count + 1);
    if (ntok != want) {
        snprintf(why, why_size, "expected %d fields (%d classes of '%s:' and %d counts), found %d", want, STYLE_NB,
                 "class", count, ntok);
        return false;
    }
    for (int c = 0, k = 0; c < STYLE_NB; c++) {
        char label[32];
        snprintf(label, sizeof label, "%s:", StyleNames[c]);
        if (strcmp(tok[k], label)) {
            snprintf(why, why_size, "expected '%s', found '%.40s'", label, tok[k]);
            return false;
        }
        k++;
        for (int v = 0; v < count; v++, k++) {
            const char *s = tok[k];
            char *end;
            errno = 0;
            unsigned long long x = isdigit((unsigned char)s[0]) ? strtoull(s, &end, 10) : 0;
            if (!isdigit((unsigned char)s[0]) || *end || errno || x > UINT32_MAX) {
                snprintf(why, why_size, "'%.40s' is not a count (a whole number from 0 to %u)", s, UINT32_MAX);
                return false;
            }
            rows[c][v] = (uint32_t)x;
        }
    }
    return true;
}

bool style_model_parse(StyleModel *m, const char *text, char *err, size_t err_size)
{
    StyleModel tmp;
    style_model_init(&tmp);
    bool seen[STYLE_FEATURE_NB + 2] = {false}; /* the features, the prior, the decision prior */
    int seen_lines[STYLE_FEATURE_NB] = {0};
    bool header = false, ok = true;
    int line_no = 0;
    char why[200] = "";
    char *copy = strdup(text ? text : "");
    char *next = NULL;
    for (char *line = copy; line && ok; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        line_no++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r')
            line[--len] = 0;
        char *tok[64];
        int ntok = 0;
        char *save_tok = NULL;
        for (char *w = strtok_r(line, " \t", &save_tok); w; w = strtok_r(NULL, " \t", &save_tok)) {
            if (ntok == 64) {
                snprintf(why, sizeof why, "too many fields");
                ok = false;
                break;
            }
            tok[ntok++] = w;
        }
        if (!ok)
            break;
        if (ntok == 0 || tok[0][0] == '#')
            continue;
        if (!header) {
            if (strcmp(tok[0], MODEL_MAGIC)) {
                snprintf(why, sizeof why, "not a style model: the first line must be '%s %d'", MODEL_MAGIC,
                         MODEL_VERSION);
                ok = false;
            } else if (ntok != 2 || strcmp(tok[1], "1")) {
                snprintf(why, sizeof why, "unsupported model version '%.20s' (this build reads version %d)",
                         ntok > 1 ? tok[1] : "", MODEL_VERSION);
                ok = false;
            }
            header = true;
            continue;
        }
        int table = -1;
        if (!strcmp(tok[0], "prior"))
            table = STYLE_FEATURE_NB;
        if (!strcmp(tok[0], "decision_prior"))
            table = STYLE_FEATURE_NB + 1;
        for (int f = 0; f < STYLE_FEATURE_NB; f++)
            if (!strcmp(tok[0], StyleFeatureNames[f]))
                table = f;
        if (table < 0) {
            snprintf(why, sizeof why,
                     "unknown table '%.40s' (expected prior, decision_prior, first_move, castling, pieces, pawns)",
                     tok[0]);
            ok = false;
        } else if (seen[table]) {
            snprintf(why, sizeof why, "table '%s' appears twice", tok[0]);
            ok = false;
        } else if (table == STYLE_FEATURE_NB) {
            uint32_t rows[STYLE_NB][STYLE_VALUES_MAX];
            ok = parse_rows(tok + 1, ntok - 1, 1, rows, why, sizeof why);
            for (int c = 0; ok && c < STYLE_NB; c++)
                tmp.prior[c] = rows[c][0];
        } else if (table == STYLE_FEATURE_NB + 1) {
            uint32_t rows[STYLE_NB][STYLE_VALUES_MAX];
            ok = parse_rows(tok + 1, ntok - 1, 1, rows, why, sizeof why);
            unsigned long long sum = 0;
            bool zero = false;
            for (int c = 0; ok && c < STYLE_NB; c++) {
                tmp.decision[c] = rows[c][0];
                sum += rows[c][0];
                zero |= !rows[c][0];
            }
            if (ok && (zero || sum != STYLE_DECISION_UNITS)) {
                snprintf(why, sizeof why, "the decision prior must be %d parts, none of them 0, in all",
                         STYLE_DECISION_UNITS);
                ok = false;
            }
        } else {
            ok = parse_rows(tok + 1, ntok - 1, StyleFeatureValues[table], tmp.count[table], why, sizeof why);
            seen_lines[table] = line_no;
        }
        if (ok)
            seen[table] = true;
    }
    free(copy);
    if (!ok) {
        snprintf(err, err_size, "style model: line %d: %s", line_no, why);
        return false;
    }
    if (!header) {
        snprintf(err, err_size, "style model: empty (expected the line '%s %d')", MODEL_MAGIC, MODEL_VERSION);
        return false;
    }
    for (int t = 0; t <= STYLE_FEATURE_NB; t++)
        if (!seen[t]) {
            snprintf(err, err_size, "style model: table '%s' is missing",
                     t < STYLE_FEATURE_NB ? StyleFeatureNames[t] : "prior");
            return false;
        }
    /* Every sample counts once in every table: each row must add up to its class's prior. */
    for (int f = 0; f < STYLE_FEATURE_NB; f++)
        for (int c = 0; c < STYLE_NB; c++) {
            unsigned long long sum = 0;
            for (int v = 0; v < StyleFeatureValues[f]; v++)
                sum += tmp.count[f][c][v];
            if (sum != tmp.prior[c]) {
                snprintf(err, err_size, "style model: line %d: %s counts of class %s add up to %llu, the prior says %u",
                         seen_lines[f], StyleFeatureNames[f], StyleNames[c], sum, tmp.prior[c]);
                return false;
            }
        }
    *m = tmp;
    return true;
}

bool style_model_load(StyleModel *m, const char *path, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "cannot open style model %s: %s", path, strerror(errno));
        return false;
    }
    /* A model is a few hundred bytes; anything past 64 KB is not one. */
    enum { MAX_MODEL = 1 << 16 };
    char *buf = malloc(MAX_MODEL + 1);
    size_t n = buf ? fread(buf, 1, MAX_MODEL + 1, f) : 0;
    fclose(f);
    if (!buf) {
        snprintf(err, err_size, "out of memory");
        return false;
    }
    bool ok;
    if (n > MAX_MODEL) {
        snprintf(err, err_size, "style model %s: larger than %d bytes, not a model", path, MAX_MODEL);
        ok = false;
    } else if (memchr(buf, 0, n)) {
        snprintf(err, err_size, "style model %s: binary data, not a model", path);
        ok = false;
    } else {
        buf[n] = 0;
        char msg[300];
        ok = style_model_parse(m, buf, msg, sizeof msg);
        if (!ok)
            snprintf(err, err_size, "%s: %s", path, msg);
    }
    free(buf);
    return ok;
}

bool style_model_save(const StyleModel *m, const char *path, char *err, size_t err_size)
{
    char *text = style_model_format(m);
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
        free(text);
        return false;
    }
    bool ok = fputs(text, f) >= 0;
    ok = (fclose(f) == 0) && ok;
    free(text);
    if (!ok)
        snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
    return ok;
}

/* ---- Classifying games -------------------------------------------------------------------- */

/* Whether colour c has made its n-th move (by the move numbers) in the position at game_ply. */
static bool has_played(Color c, int game_ply, int n) { return game_ply >= 2 * n - (c == WHITE); }

static void result_from(const StyleModel *m, const StyleFeatures *samples, int count, const StyleFeatures *last,
                        StyleResult *out)
{
    memset(out, 0, sizeof *out);
    out->ready = count > 0;
    out->samples = count;
    out->style = style_model_classify(m, samples, count, out->posterior);
    memcpy(out->sample, samples, sizeof samples[0] * (size_t)count);
    out->features = count ? samples[count - 1] : *last;
}

static bool classify(const StyleModel *m, const Position *start, const Move *moves, int n, Color c, bool in_progress,
                     StyleResult *out, char *err, size_t err_size)
{
    StyleFeatures samples[STYLE_SAMPLE_NB + 1], last;
    int count = style_game_samples(start, moves, n, c, false, samples, &last);
    if (count < 0) {
        snprintf(err, err_size, "an illegal move in the game");
        return false;
    }
    /* c's moves in the list: the first is at ply 0 if c is to move at the start, else at ply 1. */
    bool moved = n > (start->side == c ? 0 : 1);
    bool ready = moved && has_played(c, last.ply, STYLE_CLASSIFY_FROM);
    if (ready && (in_progress || count == 0) && (count == 0 || samples[count - 1].ply != last.ply))
        samples[count++] = last;
    if (!ready)
        count = 0;
    result_from(m, samples, count, &last, out);
    return true;
}

bool style_classify_game(const StyleModel *m, const PgnGame *g, Color c, StyleResult *out, char *err, size_t err_size)
{
    Position *start = malloc(sizeof *start);
    char msg[200];
    bool ok = start && pgn_start_position(g, start, msg, sizeof msg);
    if (!ok)
        snprintf(err, err_size, "bad FEN tag: %s", start ? msg : "out of memory");
    Move *moves = ok ? malloc(sizeof *moves * (size_t)(g->move_count + 1)) : NULL;
    if (moves) {
        for (int i = 0; i < g->move_count; i++)
            moves[i] = g->moves[i].move;
        ok = classify(m, start, moves, g->move_count, c, false, out, err, err_size);
    } else if (ok) {
        snprintf(err, err_size, "out of memory");
        ok = false;
    }
    free(moves);
    free(start);
    return ok;
}

bool style_classify_pgn(const StyleModel *m, const char *pgn_text, Color c, StyleResult *out, char *err,
                        size_t err_size)
{
    PgnReader *r = pgn_reader_open_string(pgn_text);
    PgnGame g;
    char msg[300];
    PgnResult res = pgn_read_game(r, &g, msg, sizeof msg);
    bool ok = false;
    if (res == PGN_GAME)
        ok = style_classify_game(m, &g, c, out, err, err_size);
    else if (res == PGN_END)
        snprintf(err, err_size, "no game in the PGN text");
    else
        snprintf(err, err_size, "bad PGN: %s", msg);
    pgn_game_free(&g);
    pgn_reader_close(r);
    return ok;
}

bool style_classify_moves(const StyleModel *m, const char *start_fen, const Move *moves, int n, Color opponent,
                          StyleResult *out, char *err, size_t err_size)
{
    Position *start = malloc(sizeof *start);
    char msg[200];
    bool ok = start && fen_read(start, start_fen ? start_fen : FEN_STARTPOS, msg, sizeof msg) == FEN_OK;
    if (!ok)
        snprintf(err, err_size, "bad FEN: %s", start ? msg : "out of memory");
    else
        ok = classify(m, start, moves, n, opponent, true, out, err, err_size);
    free(start);
    return ok;
}

bool style_name_matches(const char *tag, const char *name)
{
    if (!tag || !name || !*name)
        return false;
    size_t n = strlen(name);
    for (const char *s = tag; *s; s++)
        if (!strncasecmp(s, name, n))
            return true;
    return false;
}
