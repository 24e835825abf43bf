# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 256), "float32"), B: T.Buffer((128,), "float32")):
    T.func_attr({"global_symbol": "rsum"})
    # with T.block("root"):
    B_rf = T.alloc_buffer((32, 128))
    for i, k_0, k_1 in T.grid(128, 8, 32):
        with T.block("B_rf"):
            vk_1, vi, vk_0 = T.axis.remap("SSR", [k_1, i, k_0])
            T.reads(A[vi, vk_0 * 32 + vk_1])
            T.writes(B_rf[vk_1, vi])
            with T.init():
                B_rf[vk_1, vi] = T.float32(0.0)
            B_rf[vk_1, vi] = B_rf[vk_1, vi] + A[vi, vk_0 * 32 + vk_1]
    for i, k_1 in T.grid(128, 32):
        with T.block("B"):
            vk_1, vi = T.axis.remap("RS", [k_1, i])
            T.reads(B_rf[vk_1, vi])
            T.writes(B[vi])
            with T.init():
                B[vi] = T.float32(0.0)
            B[vi] = B[vi] + B_rf[vk_1, vi]
