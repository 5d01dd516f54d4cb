/* The server's unit suites (build/unit-server): the code under server/ without a live server, on
 * the shared harness (../test.h). One suite per module, in <folder>/test_<module>.c. */
#ifndef FEELFISH_SERVER_TEST_H
#define FEELFISH_SERVER_TEST_H

#include "../test.h"

void suite_routes(void);  /* api/routes */
void suite_request(void); /* api/request */
void suite_jobs(void);    /* jobs: the table and the local backend */
void suite_games(void);   /* domain/games */
void suite_bot(void);     /* bot/config and bot/challenge */
void suite_proxy(void);   /* base/proxy */
void suite_utf8(void);    /* base/utf8: text as JSON */

#endif
