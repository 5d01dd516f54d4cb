/* The engine's command-line tools (bench, perft, match, datagen, tune...): their table for
 * server/main.c and their entry points. Each returns the process exit code (2: bad arguments). */
#ifndef FEELFISH_TOOLS_H
#define FEELFISH_TOOLS_H

#include <stdio.h>

#include "command.h"

extern const Command EngineTools[];
extern const int EngineToolCount;

int bench_command(int argc, char **argv, FILE *out);
int perft_command(int argc, char **argv, FILE *out);
int pgn_command(int argc, char **argv, FILE *out);
int epd_command(int argc, char **argv, FILE *out);
int match_command(int argc, char **argv, FILE *out);
int datagen_command(int argc, char **argv, FILE *out);
int tune_command(int argc, char **argv, FILE *out);
int train_command(int argc, char **argv, FILE *out);
int humanlike_command(int argc, char **argv, FILE *out);
int style_train_command(int argc, char **argv, FILE *out);
int style_command(int argc, char **argv, FILE *out);
int style_cv_command(int argc, char **argv, FILE *out);
int affective_ranges_command(int argc, char **argv, FILE *out);

#endif
