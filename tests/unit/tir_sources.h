/*
 * tir_sources.h -- the classic-TVMScript programs the TensorIR tests start from (the
 * same texts tests/tir/gen_golden.py gives TVM).
 */
#ifndef WF_TESTS_TIR_SOURCES_H
#define WF_TESTS_TIR_SOURCES_H

/* seed 004, In [1], as written in the notebook */
#define TIR_SUM_BROADCAST                                                                          \
    "import tvm\n"                                                                                 \
    "from tvm import tir\n"                                                                        \
    "from tvm.script import tir as T\n"                                                            \
    "\n"                                                                                           \
    "\n"                                                                                           \
    "@T.prim_func\n"                                                                               \
    "def sum_broadcast(\n"                                                                         \
    "    A: T.Buffer((256,), \"float32\"),\n"                                                      \
    "    B: T.Buffer((256,), \"float32\"),\n"                                                      \
    ") -> None:\n"                                                                                 \
    "    for i, k in T.grid(256, 256):\n"                                                          \
    "        with T.block(\"sum_broadcast\"):\n"                                                   \
    "            vi = T.axis.spatial(256, i)\n"                                                    \
    "            vk = T.axis.reduce(256, k)\n"                                                     \
    "            with T.init():\n"                                                                 \
    "                B[vi] = T.float32(0)\n"                                                       \
    "            B[vi] += A[vk]\n"

#define TIR_ADD_RELU                                                                               \
    "@T.prim_func\n"                                                                               \
    "def add_relu(A: T.Buffer((64, 32), \"float32\"), B: T.Buffer((64, 32), \"float32\"), "        \
    "C: T.Buffer((64, 32), \"float32\")):\n"                                                       \
    "    with T.block(\"root\"):\n"                                                                \
    "        D = T.alloc_buffer((64, 32))\n"                                                       \
    "        for i, j in T.grid(64, 32):\n"                                                        \
    "            with T.block(\"D\"):\n"                                                           \
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                      \
    "                D[vi, vj] = A[vi, vj] + B[vi, vj] * T.float32(2)\n"                           \
    "        for i, j in T.grid(64, 32):\n"                                                        \
    "            with T.block(\"C\"):\n"                                                           \
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                      \
    "                C[vi, vj] = T.max(D[vi, vj], T.float32(0))\n"

#define TIR_MATMUL                                                                                 \
    "@T.prim_func\n"                                                                               \
    "def matmul(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64, 64), \"float32\"), "          \
    "C: T.Buffer((64, 64), \"float32\")):\n"                                                       \
    "    for i, j, k in T.grid(64, 64, 64):\n"                                                     \
    "        with T.block(\"C\"):\n"                                                               \
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"                                  \
    "            with T.init():\n"                                                                 \
    "                C[vi, vj] = T.float32(0)\n"                                                   \
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n"

#define TIR_COPY                                                                                   \
    "@T.prim_func\n"                                                                               \
    "def copy(A: T.Buffer((64, 32), \"float32\"), B: T.Buffer((64, 32), \"float32\")):\n"          \
    "    for i, j in T.grid(64, 32):\n"                                                            \
    "        with T.block(\"B\"):\n"                                                               \
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                          \
    "            B[vi, vj] = A[vi, vj]\n"

#define TIR_CHAIN                                                                                  \
    "@T.prim_func\n"                                                                               \
    "def chain(A: T.Buffer((128,), \"float32\"), B: T.Buffer((128,), \"float32\"), "               \
    "C: T.Buffer((128,), \"float32\")):\n"                                                         \
    "    with T.block(\"root\"):\n"                                                                \
    "        X = T.alloc_buffer((128,))\n"                                                         \
    "        Y = T.alloc_buffer((128,))\n"                                                         \
    "        for i in range(128):\n"                                                               \
    "            with T.block(\"X\"):\n"                                                           \
    "                vi = T.axis.spatial(128, i)\n"                                                \
    "                X[vi] = A[vi] * B[vi]\n"                                                      \
    "        for i in range(128):\n"                                                               \
    "            with T.block(\"Y\"):\n"                                                           \
    "                vi = T.axis.spatial(128, i)\n"                                                \
    "                Y[vi] = T.exp(X[vi]) + A[vi]\n"                                               \
    "        for i in range(128):\n"                                                               \
    "            with T.block(\"C\"):\n"                                                           \
    "                vi = T.axis.spatial(128, i)\n"                                                \
    "                C[vi] = T.max(Y[vi], X[vi])\n"

#endif
