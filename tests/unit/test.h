/* A small unit-test harness (test.c): CHECK macros that fail the current test and return, suites
 * that RUN tests, and a summary line "<binary>: N passed, N failed". */
#ifndef FEELFISH_TEST_H
#define FEELFISH_TEST_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

extern int test_failed_flag;
void test_fail(const char *file, int line, const char *fmt, ...);
void test_run(const char *name, void (*fn)(void));

/* Shown after each test's name (the engine's suites run once per attack-table implementation). */
void test_set_mode(const char *mode);
/* FEELFISH_SUITES="search rules" runs only the suites named; unset or empty, every suite runs. */
bool test_wanted(const char *suite);
/* Prints "<binary>: N passed, N failed"; the exit status (1 if any failed). */
int test_summary(const char *binary);

#define RUN(fn) test_run(#fn, fn)
#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            test_fail(__FILE__, __LINE__, "%s", #cond);                                                                \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)
#define CHECK_MSG(cond, ...)                                                                                           \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            test_fail(__FILE__, __LINE__, __VA_ARGS__);                                                                \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)
#define CHECK_INT(a, b)                                                                                                \
    do {                                                                                                               \
        long long a_ = (long long)(a), b_ = (long long)(b);                                                            \
        if (a_ != b_) {                                                                                                \
            test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, a_, b_);                                   \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)
#define CHECK_STR(a, b)                                                                                                \
    do {                                                                                                               \
        const char *a_ = (a), *b_ = (b);                                                                               \
        if (!a_ || !b_ || strcmp(a_, b_)) {                                                                            \
            test_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b, a_ ? a_ : "(null)",                    \
                      b_ ? b_ : "(null)");                                                                             \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)

/* Shared data folder (../shared/data from the repository root, or $FEELFISH_DATA). */
const char *test_data_path(const char *relative);

/* The colour-flipped mirror of a FEN (ranks reversed, case, side, castling, en passant flipped). */
void test_mirror_fen(const char *fen, char *out);
/* The first max FENs (four fields) of a shared data file; returns how many were read. */
int test_read_fens(const char *relative, char fens[][128], int max);

/* A deterministic generator for randomised tests. */
unsigned long long test_rand(void);

/* One suite per tested module, in tests/unit/<folder>/test_<module>.c as the source is laid out. */
void suite_movegen(void); /* core */
void suite_rules(void);
void suite_fen(void); /* notation */
void suite_move(void);
void suite_san(void);
void suite_pgn(void);
void suite_fuzz(void);
void suite_eval(void); /* eval */
void suite_affective(void);
void suite_bayes(void);
void suite_nnue(void);
void suite_search(void);   /* search */
void suite_strength(void); /* search */
void suite_movepick(void);
void suite_adaptive(void); /* adapt */
void suite_selfplay(void);
void suite_style(void);
void suite_review(void); /* review */
void suite_trainset(void); /* tools */

#endif
