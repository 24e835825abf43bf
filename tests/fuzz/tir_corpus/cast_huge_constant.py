# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 256), "float32"), B: T.Buffer((128,), "float32")):
    T.func_attr({"global_symbol": "rsum"})
    # with T.block("root"):
    B_rf = T.alloc_buffer((128, 8))
    for i, k_0, k_1 in T.grid(128, 8, 32):
        with T.block("B_rf"):
            vk_0, vi, vk_1 = T.axis.remap("SRR", [k_1, i, k_1])
            T.reads(A[vi, vk_0 * 32 + vk_1])
            T.writes(B_rf[vi, vk_0])
            with T.init():
                B_rf[vi, vk_0] = T.float32(0.0)
            B_rf[vi, vk_0] = B_rf[vi, vk_0] + A[vi, vk_0 * 32 + vk_1]
    for i, k_0 in T.grid(128, 8):
        with T.block("B"):
            vk_0, vi = T.axis.remap("RS", [k_0, i])
            T.reads(B_rf[vi, vk_0])
            T.writes(B[vi])
            with T.init():
                B[vi] = T.float32(077777777777777777777777777777777777777777777777777777.0)
            B[vi] = B[vi] + B_rf[vi, vk_0]
