/* A file built into the binary by the assembler (.incbin): EMBED_FILE(name, "path", align) defines
 * name_data[] (the bytes, aligned to align) and name_size, at file scope. The Makefile rebuilds the
 * object that embeds a file when the file changes. */
#ifndef FEELFISH_EMBED_H
#define FEELFISH_EMBED_H

#include <stdint.h>

#define EMBED_FILE(name, path, align)                                                                          \
    __asm__(".section .rodata\n"                                                                               \
            ".balign " #align "\n" #name "_begin:\n"                                                           \
            ".incbin \"" path "\"\n" #name "_end:\n"                                                           \
            ".balign 8\n"                                                                                      \
            ".globl " #name "_size\n" #name "_size:\n"                                                         \
            ".quad " #name "_end - " #name "_begin\n"                                                          \
            ".globl " #name "_data\n"                                                                          \
            ".set " #name "_data, " #name "_begin\n"                                                           \
            ".text\n");                                                                                        \
    extern const unsigned char name##_data[];                                                                  \
    extern const uint64_t name##_size

#endif
