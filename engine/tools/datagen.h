/* `feelfish datagen`: labelled positions from self-play, for `feelfish tune --labels`. */
#ifndef FEELFISH_DATAGEN_H
#define FEELFISH_DATAGEN_H


int datagen_command(int argc, char **argv);

#endif
