# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    T.func_attr({"global_symbol": "chain"})
    # with T.block("root"):
    X = T.alloc_buffer((128,))
    Y = T.alloc_buffer((128,))
    for i in range(128):
        with T.block("X"):
            vi = T.axis.spatial(128, i)
            T.reads(A[vi], B[vi])
            T.writes(X[vi])
            X[vi] = A[vi] * B[vi]
    for i in range(128):
        with T.block("Y"):
            vi = T.axis.spatial(128, i)
            T.reads(X[vi], A[vi])
            T.writes(Y[vi])
            Y[vi] = T.exp(X[vi]) + A[vi]
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            T.reads(Y[vi], X[vi])
            T.writes(C[vi])
            C[vi] = T.max(Y[vi], X[vi])
