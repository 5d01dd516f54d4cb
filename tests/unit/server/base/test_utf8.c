/* Text as JSON (server/base/utf8.h): utf8_json_string's output is ASCII, is read back by jansson as
 * the very string, and says when it does not fit. */
#include <jansson.h>
#include <string.h>

#include "../../../../server/base/utf8.h"
#include "../server_test.h"

static void test_json_string(void)
{
    const char *cases[] = {"", "plain", "a \"quote\" and a \\ backslash", "tab\tnew\nline\x01", "caf\xc3\xa9",
                           "\xe2\x99\x9e knight", "\xf0\x9f\x98\x80 beyond the BMP", "disk I/O error (code 10)"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[256];
        CHECK_MSG(utf8_json_string(out, sizeof out, cases[i]), "case %zu did not fit", i);
        bool ascii = true;
        for (const char *c = out; *c; c++)
            ascii &= (unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f;
        json_error_t err;
        json_t *back = json_loads(out, JSON_DECODE_ANY, &err);
        CHECK_MSG(ascii && back && json_is_string(back) && !strcmp(json_string_value(back), cases[i]), "case %zu: %s",
                  i, out);
        json_decref(back);
    }
    char out[64];
    CHECK(utf8_json_string(out, sizeof out, "bad \xff byte") && !strcmp(out, "\"bad ? byte\""));
    CHECK(!utf8_json_string(out, 8, "longer than eight"));
    CHECK(utf8_json_string(out, 3, "") && !strcmp(out, "\"\""));
    CHECK(!utf8_json_string(out, 7, "\xc3\xa9")); /* "\u00e9" needs 9 bytes */
}

void suite_utf8(void) { RUN(test_json_string); }
