# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64, 32), "float32")):
    T.func_attr({"global_symbol": "copy"})
    # with T.block("root"):
    for i_j_fused_0 in T.thread_binding(4, thread="blockIdx.x"):
        for i_j_fused_1 in T.unroll(2):
            for i_j_fused_2 in T.thread_binding(64, thread="threadIdx.x"):
                for i_j_fused_3 in T.vectorized(4):
                    with T.block("B"):
                        vi = T.axis.spatial(64, (i_j_fused_0 * 512 + i_j_fused_1 * 256 + i_j_fused_2 * 4 + i_j_fused_3) // 32)
                        vj = T.axis.spatial(32, (i_j_fused_0 * 512 + i_j_fused_1 * 256 + i_j_fused_2 * 4 + i_j_fused_3) % 32)
                        T.reads(A[vi, vj])
                        T.writes(B[vi, vj])
                        B[vi, vj] = A[vi, vj]
