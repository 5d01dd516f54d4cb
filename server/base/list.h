/* Intrusive doubly linked lists: the server's sets of connections, sessions, waiting requests, HTTP
 * calls and streams, each a head pointer and two link members in its nodes (named as the caller
 * says, so a node may sit in more than one list). Constant-time insertion and removal. */
#ifndef FEELFISH_LIST_H
#define FEELFISH_LIST_H

/* Puts node first in the list at head. */
#define LIST_PUSH(head, node, prev, next)                                                                              \
    do {                                                                                                               \
        (node)->prev = NULL;                                                                                           \
        (node)->next = (head);                                                                                         \
        if (head)                                                                                                      \
            (head)->prev = (node);                                                                                     \
        (head) = (node);                                                                                               \
    } while (0)

/* Puts node last in the list at head (walks it: for short lists). */
#define LIST_APPEND(head, node, prev, next)                                                                            \
    do {                                                                                                               \
        (node)->next = NULL;                                                                                           \
        (node)->prev = (head);                                                                                         \
        while ((node)->prev && (node)->prev->next)                                                                     \
            (node)->prev = (node)->prev->next;                                                                         \
        if ((node)->prev)                                                                                              \
            (node)->prev->next = (node);                                                                               \
        else                                                                                                           \
            (head) = (node);                                                                                           \
    } while (0)

/* Takes node (which is in the list) out of the list at head. */
#define LIST_UNLINK(head, node, prev, next)                                                                            \
    do {                                                                                                               \
        if ((node)->prev)                                                                                              \
            (node)->prev->next = (node)->next;                                                                         \
        else                                                                                                           \
            (head) = (node)->next;                                                                                     \
        if ((node)->next)                                                                                              \
            (node)->next->prev = (node)->prev;                                                                         \
        (node)->prev = (node)->next = NULL;                                                                            \
    } while (0)

#endif
