# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64, 32), "float32"), C: T.Buffer((64, 32), "float32")):
    T.func_attr({"global_symbol": "add_relu"})
    # with T.block("root"):
    D = T.alloc_buffer((64, 32))
    C_local = T.alloc_buffer((64, 32), scope="local")
    for i, j in T.grid(64, 32):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj], B[vi, vj])
            T.writes(D[vi, vj])
            D[vi, vj] = A[vi, vj] + B[vi, vj] * T.float32(2.0)
    for i, j in T.grid(64, 32):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(D[vi, vj])
            T.writes(C_local[vi, vj])
            C_local[vi, vj] = T.max(D[vi, vj], T.float32(0.0))
    for ax0, ax1 in T.grid(64, 32):
        with T.block("C_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(C_local[v0, v1])
            T.writes(C[v0, v1])
            C[v0, v1] = C_local[v0, v1]
