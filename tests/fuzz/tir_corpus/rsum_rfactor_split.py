# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 256), "float32"), B: T.Buffer((128,), "float32")):
    T.func_attr({"global_symbol": "rsum"})
    # with T.block("root"):
    for i, k_0, k_1 in T.grid(128, 8, 32):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            vk = T.axis.reduce(256, k_0 * 32 + k_1)
            T.reads(A[vi, vk])
            T.writes(B[vi])
            with T.init():
                B[vi] = T.float32(0.0)
            B[vi] = B[vi] + A[vi, vk]
