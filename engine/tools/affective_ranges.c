/* `feelfish affective-ranges FILE.epd...`: the range (max - min) of each grouped term of the
 * classical evaluation over the positions of the files, the numbers behind AffectiveRanges. */
#include <stdlib.h>

#include "../eval/affective.h"
#include "../notation/fen.h"
#include "tools.h"

int affective_ranges_command(int argc, char **argv, FILE *out)
{
    static const EvalGroup Group[AFFECTIVE_TERM_NB] = {GROUP_MATERIAL, GROUP_MOBILITY, GROUP_KING_SAFETY,
                                                       GROUP_OPP_KING_EXPOSURE};
    if (argc < 1) {
        fprintf(stderr, "usage: feelfish affective-ranges FILE.epd...\n");
        return 2;
    }
    Position *p = malloc(sizeof *p);
    if (!p)
        return 1;
    Evaluator e;
    evaluator_classical(&e);
    int lo[AFFECTIVE_TERM_NB], hi[AFFECTIVE_TERM_NB], n = 0;
    for (int i = 0; i < AFFECTIVE_TERM_NB; i++)
        lo[i] = 1 << 30, hi[i] = -(1 << 30);
    for (int a = 0; a < argc; a++) {
        FILE *f = fopen(argv[a], "r");
        if (!f) {
            fprintf(stderr, "affective-ranges: cannot open %s\n", argv[a]);
            free(p);
            return 2;
        }
        char line[4096];
        while (fgets(line, sizeof line, f)) {
            char b[100], s[8], c[8], ep[8], fen[160];
            if (sscanf(line, "%99s %7s %7s %7s", b, s, c, ep) != 4)
                continue;
            snprintf(fen, sizeof fen, "%s %s %s %s", b, s, c, ep);
            if (fen_read(p, fen, NULL, 0) != FEN_OK)
                continue;
            EvalTerms t;
            evaluate_terms(p, &e, &t);
            for (int i = 0; i < AFFECTIVE_TERM_NB; i++) {
                int v = t.group[Group[i]];
                lo[i] = v < lo[i] ? v : lo[i];
                hi[i] = v > hi[i] ? v : hi[i];
            }
            n++;
        }
        fclose(f);
    }
    free(p);
    static const char *const Names[AFFECTIVE_TERM_NB] = {"material", "mobility", "king_safety", "opp_king_exposure"};
    fprintf(out, "%d positions\n", n);
    for (int i = 0; i < AFFECTIVE_TERM_NB; i++)
        fprintf(out, "%-18s min %6d  max %6d  range %6d\n", Names[i], lo[i], hi[i], hi[i] - lo[i]);
    return n ? 0 : 1;
}
