/* Games against the engine, as a state machine: the human's moves, the engine's replies at a
 * level, the game's end by the rules, takeback and resignation; in affective mode the engine's
 * emotion carries from one of its moves to the next (mood), in Bayesian mode each reply's choice
 * is recorded and the finished game teaches the model. No requests, no JSON: the API encodes a
 * game and stores it through the `changed` hook, and waits for the engine through a listener.
 * Loop thread only. */
#ifndef FEELFISH_GAMES_H
#define FEELFISH_GAMES_H

#include "../../engine/adapt/adaptive.h"
#include "../../engine/engine.h"
#include "../base/error.h"
#include "../jobs/jobs.h"

#define GAMES_MAX_MOVES 1200
#define GAMES_LEVEL_MAX 8
#define GAMES_MOVE_MS 1500 /* the longest an engine's move in a game takes (level 8's) */
#define GAMES_ID_LEN 16    /* "g" and 15 random hex digits: public (watch, PGN) */
#define GAMES_SECRET_LEN 8 /* the fullId is the id and this secret, as Lichess's: play, take back, resign */

typedef struct {
    int ply; /* the engine moved after this many plies */
    Emotion emotion;
} GameEmotion;

typedef struct {
    int ply;
    BayesChoice choice;
} GameChoice;

typedef struct Game Game;
typedef void (*GameListener)(Game *g, void *user);

struct Game {
    char id[GAMES_ID_LEN + 1];
    char secret[GAMES_SECRET_LEN + 1];
    char mode[16];
    Color human;
    int level;               /* 1..8; with a rating asked, the level nearest it */
    int elo;                 /* the rating the engine plays at (strength.h), 0: full strength */
    Temperament temperament; /* affective: the one in effect, with the gain asked (else its own) */
    char initial_fen[FEN_BUFFER_SIZE];
    Move moves[GAMES_MAX_MOVES];
    int move_count;
    char status[24], result[8], reason[32];
    bool thinking;
    bool has_emotion;
    Emotion emotion;       /* the engine's last emotion: the mood carried into its next appraisal */
    GameEmotion *emotions; /* one per engine move (affective mode) */
    int emotion_count;
    BayesTarget target;  /* bayesian mode: the requested target ... */
    bool auto_target;    /* ... or auto (the opponent's style decides from its move 10) */
    GameChoice *choices; /* bayesian mode: the choice of every engine move */
    int choice_count;
    uint8_t *levels[BAYES_PHASE_NB]; /* the engine's parameter levels in each phase it reached */
    bool learned;                    /* its records are in the Bayesian model */
    char not_learned[16];            /* finished but not learned from: why (GameHooks.may_learn) */
    char owner[48];                  /* who created it (the API's client): its engine moves are its jobs */
    bool may_teach;                  /* its creator may teach the shared model */
    /* A game played elsewhere (the Lichess bot): the opponent's moves come from there, the
     * engine moves only when told (games_think) with the limits it is given, and the game ends
     * as the other side says (games_end). */
    bool external;
    SearchLimits think_limits;  /* external: the limits of the move being (or to be) searched */
    int think_ply;              /* the move count when the engine's search started */
    Job *job;                   /* the engine's search while thinking (the game holds a reference) */
    int last_score, last_depth; /* the engine's last move: its score (its own view, cp) and depth */
    int engine_move_ply;        /* the index of the move the engine's last search played, -1 if none */
    bool pinned;                /* someone outside holds it (the bot): it never leaves memory */
    char white[64], black[64];  /* players' names for the PGN (external games) */
    char white_title[8], black_title[8], time_control[48], event[64]; /* PGN tags (external games) */
    char site[300]; /* where it was played (external games), e.g. its Lichess URL */
    long long created_ms, updated_ms;
    long long shared_version; /* in a cluster: the version of the shared copy this one is (api/persist.c) */
    GameListener listener;    /* hears the engine's reply (one at a time) */
    void *listener_user;
    struct Game *next;
};

/* What a new game is asked to be; the API has checked the types. */
typedef struct {
    const char *mode;           /* classical, affective or bayesian */
    const char *color;          /* the human's: white, black or random */
    int level;                  /* 1..8; 0: none asked (level 8 unless elo is), -1: not a level */
    int elo;                    /* a rating asked instead of a level (0: none, -1: not a rating) */
    const char *temperament;    /* affective */
    const double *gain;         /* affective: the emotion's hold asked (0..1); NULL: the temperament's */
    const char *target;         /* auto, aggressive or conservative; NULL: auto */
    const char *default_target; /* with auto: the target before the opponent's style is known */
    const char *fen;            /* NULL: the start position */
    const char *const *moves;   /* opening moves, UCI or SAN */
    int move_count;
    const char *owner; /* who creates it */
    bool may_teach;    /* whether its creator may teach the shared model */
    bool external;     /* played elsewhere: see Game.external (the engine never moves by itself) */
} GameSettings;

typedef struct {
    void (*changed)(Game *g); /* after every change: the API stores the game */
    /* Whether a finished game may teach the shared Bayesian model: NULL, or why not (a short
     * code). May be NULL: every finished game teaches it. */
    const char *(*may_learn)(const Game *g);
} GameHooks;

void games_init(const GameHooks *hooks);
void games_shutdown(void);

/* A new game, inserted; the engine's first move is started when it plays first. NULL with e set
 * when the settings are wrong or no worker can take the first move. */
Game *games_create(const GameSettings *s, ApiError *e);
Game *games_find(const char *id);
/* Whether `secret` is the game's (compared in constant time). */
bool games_is_secret(const Game *g, const char *secret);
/* A game loaded from storage (after a restart): inserted unless one with its id is in memory
 * already, in which case that one is returned and g is freed. */
Game *games_adopt(Game *g);
/* A fresh, empty game for the API's decoder to fill; games_free frees one not inserted. */
Game *games_alloc(void);
void games_free(Game *g);

/* External games. games_sync brings the moves to `uci` (the other side's full list: moves after
 * the common part are played, a shorter list takes back), keeping a search under way only if the
 * position it searches is still the game's; false with e set if a move is not legal. games_think
 * starts the engine's move with those limits when it is to move and not thinking (false: no
 * worker; the caller tries again, with limits of that moment). games_end ends it with the other side's verdict
 * (status "mate", "resign", "outoftime", "draw", "aborted", ...; result "1-0", "0-1", "1/2-1/2",
 * "*"), which teaches the model as any finished game does. */
bool games_sync(Game *g, const char *const *uci, int count, ApiError *e);
bool games_think(Game *g, const SearchLimits *limits);
void games_end(Game *g, const char *status, const char *result, const char *reason);

/* The human plays `text` (UCI or SAN); the engine's reply is started. False with e set. */
bool games_move(Game *g, const char *text, ApiError *e);
bool games_resign(Game *g, ApiError *e);
/* Takes back the human's last move and the engine's reply to it (or just the human's move if the
 * engine has not replied), so the human is to move again. */
bool games_takeback(Game *g, ApiError *e);
/* The game as PGN (malloc'd). */
char *games_pgn(const Game *g);
/* The current position; false if the moves do not replay (a corrupt stored game). */
bool games_position(const Game *g, Position *p);
bool games_over(const Game *g);
/* The game goes on and the engine is to move (thinking or not). */
bool games_engine_to_move(const Game *g);
/* After a restart: starts the engine's move of a game that waited for it; false if no worker can
 * take it now (it is then retried by games_retry_stalled). */
bool games_resume(Game *g);
/* Starts the engine's move of every game that waits for it with no search (no worker was free,
 * or its search stopped before finding a move); returns how many still wait. Called now and then. */
int games_retry_stalled(void);

/* Frees the games last changed before `before_ms` (wall clock) that nothing refers to: no search,
 * no listener, not pinned, not waiting for a worker, and `may` (the API's say: no save in flight)
 * agrees.
 * They stay in storage. Returns how many. */
int games_evict_idle(long long before_ms, bool (*may)(const Game *g));
/* A newer copy of g read from storage (a cluster's other front changed it) is copied into g (the
 * same address: a reply waiting for a save of g shows the newer copy), if no search, listener or
 * retry refers to g; `fresh` is freed either way. Returns g. */
Game *games_replace(Game *g, Game *fresh);
/* Whether nothing holds the game (no search, no waiting reply, not stalled): it may leave memory or
 * be replaced. */
bool games_unreferenced(const Game *g);
int games_in_memory(void);

/* Each level's rating, GamesLevelElo[1..8] (0: the engine's full strength, level 8); the level
 * nearest a rating (1..7). */
extern const int GamesLevelElo[GAMES_LEVEL_MAX + 1];
int games_level_of_elo(int elo);
/* A level (1..8; 0: none given, -1: given but not a whole number) or a rating (0: none, -1: not a
 * whole number) asked: the level and the rating to play at (a rating's level is the nearest one; 0
 * and 0 is level 0, no strength asked), or false with e set: level_and_elo, bad_level, bad_elo. */
bool games_strength(ApiError *e, int level, int elo, int *level_out, int *elo_out);
/* The search of a move at a rating (0: full strength): the rating's budget, at most GAMES_MOVE_MS. */
void games_rating_limits(int elo, SearchLimits *l);
/* The move a search played (r->best) and its line (the first when it was not reported). r has at
 * least one line. */
const SearchInfo *games_played_line(const SearchResult *r, Move *move);

/* Waits for the engine's reply (the listener is called once, when the game has changed). */
void games_listen(Game *g, GameListener fn, void *user);
void games_unlisten(Game *g);

#endif
