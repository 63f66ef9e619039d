/* The largest tensor rank the core takes (IR types, views, arguments). */
#ifndef TT_BASE_RANK_H
#define TT_BASE_RANK_H

#define TT_MAX_RANK 8

#endif
