# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "matmul"})
    # with T.block("root"):
    C_local = T.alloc_buffer((64, 64), scope="local")
    A_shared = T.alloc_buffer((64, 64), scope="shared")
    B_shared = T.alloc_buffer((64, 64), scope="shared")
    for ax0, ax1 in T.grid(64, 64):
        with T.block("B_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(B[v0, v1])
            T.writes(B_shared[v0, v1])
            B_shared[v0, v1] = B[v0, v1]
    for ax0, ax1 in T.grid(64, 64):
        with T.block("A_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v0, v1])
            T.writes(A_shared[v0, v1])
            A_shared[v0, v1] = A[v0, v1]
    for i_0, j_0 in T.grid(4, 4):
        for k_0, i_1, j_1, k_1 in T.grid(8, 16, 16, 8):
            with T.block("C"):
                vi = T.axis.spatial(64, i_0 * 16 + i_1)
                vj = T.axis.spatial(64, j_0 * 16 + j_1)
                vk = T.axis.reduce(64, k_0 * 8 + k_1)
                T.reads(A_shared[vi, vk], B_shared[vk, vj])
                T.writes(C_local[vi, vj])
                with T.init():
                    C_local[vi, vj] = T.float32(0.0)
                C_local[vi, vj] = C_local[vi, vj] + A_shared[vi, vk] * B_shared[vk, vj]
        for ax0, ax1 in T.grid(16, 16):
            with T.block("C_local"):
                v0 = T.axis.spatial(64, i_0 * 16 + ax0)
                v1 = T.axis.spatial(64, j_0 * 16 + ax1)
                T.reads(C_local[v0, v1])
                T.writes(C[v0, v1])
                C[v0, v1] = C_local[v0, v1]
