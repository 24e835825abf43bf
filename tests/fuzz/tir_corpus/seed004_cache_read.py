# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    T.func_attr({"global_symbol": "sum_broadcast"})
    # with T.block("root"):
    A_shared = T.alloc_buffer((256,), scope="shared")
    for ax0 in range(256):
        with T.block("A_shared"):
            v0 = T.axis.spatial(256, ax0)
            T.reads(A[v0])
            T.writes(A_shared[v0])
            A_shared[v0] = A[v0]
    for i_0 in T.thread_binding(2, thread="blockIdx.x"):
        for i_1 in T.thread_binding(128, thread="threadIdx.x"):
            for k in range(256):
                with T.block("sum_broadcast"):
                    vi = T.axis.spatial(256, i_0 * 128 + i_1)
                    vk = T.axis.reduce(256, k)
                    T.reads(A_shared[vk])
                    T.writes(B[vi])
                    with T.init():
                        B[vi] = T.float32(0.0)
                    B[vi] = B[vi] + A_shared[vk]
