# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    T.func_attr({"global_symbol": "sum_broadcast"})
    # with T.block("root"):
    for i, k in T.grid(256, 256):
        with T.block("sum_broadcast"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vk])
            T.writes(B[vi])
            with T.init():
                B[vi] = T.float32(0.0)
            B[vi] = B[vi] + A[vk]
