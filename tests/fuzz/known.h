/*
 * known.h -- finding classes the fuzzer knows about and steers around.
 *
 * Each switch names one class of defect recorded in /work/notes/fuzz-findings.md
 * (and issue 9) that another engineer is fixing on a branch. While a switch is
 * 1 the generator never builds the pattern (or tolerates exactly that
 * outcome), so the CI budget run stays green on branches without the fix.
 * After merging the fixes the lead sets each to 0 (or deletes it) and checks
 * that `make fuzz` still finds nothing. Every switch is also settable from
 * the command line (fuzz --all-classes turns them all off) to reproduce.
 */
#ifndef WF_TESTS_FUZZ_KNOWN_H
#define WF_TESTS_FUZZ_KNOWN_H

/* F1 self-mapping: an op whose operands are one tensor and its own
   transpose/permute (add(a, transpose(a))) writes only the diagonal; also
   outer products of broadcasts of one input. The generator never lets the
   operands of a binary op map two dims of one input together. */
#define KNOWN_SELF_MAPPING 0

/* F2 type promotion: a binary op on two dtypes takes the first operand's
   type; a float-only unary op (exp, log, ...) on an integer tensor. */
#define KNOWN_TYPE_PROMOTION 0

/* F3 float -> int casts out of range and F4 integer arithmetic (division by
   zero, INT64_MIN / -1, int64 overflow, mul/pow chains): their semantics are
   defined (include/weft.h: saturating casts, NaN -> 0, wrapping arithmetic,
   x / 0 = -1) and tested exactly by tests/unit/test_ops_matrix.c against an
   integer reference. The fuzzer's reference (tests/ref.c) computes in double,
   which cannot represent int64 or those rules, so the generator keeps away
   from them: no out-of-range float -> int casts, no div, pow, mul or
   reciprocal on integer tensors. Not a known defect: a scope limit. */
#define KNOWN_FLOAT_INT_CAST 1
#define KNOWN_INT_ARITHMETIC 1

/* F5 one parallel type on loops that do not correspond: two loops of one
   tensor on TIDz leave outputs unwritten; producer and consumer with TIDx
   on different axes. A wrong result (or an executor error) of a case where a
   tensor has two loops on one thread/block type, or where two tensors were
   given thread/block types directly (not by parallelize_all_like), is
   counted as known instead of failing; the generator also gives such types
   directly to one tensor only (several can replicate the work on millions of
   executor threads and time out). */
#define KNOWN_PARALLEL_CONFLICT 0

/* F6 domains are not validated when set: an allocation domain that does not
   cover the tensor, a permuted allocation domain on an output, a loop domain
   holding an IterDomain and one of its parts. A wrong result of a case that
   called set_allocation_domain / set_loop_domain is counted as known. */
#define KNOWN_DOMAIN_VALIDATION 0

/* F7 cross-block read-after-write through global memory (an output that
   another op reads, with a loop on BIDx/y/z): a race on a GPU, unwritten or
   stale values on the executor. Counted as known. */
#define KNOWN_GRID_DEPENDENCY 0

/* F8 a split by a huge factor (INT64_MAX, 2^40) gives extents (0, factor)
   and writes nothing. Counted as known. */
#define KNOWN_HUGE_SPLIT 0

/* F9 launch limits not enforced: TIDz above 64 compiles and runs (a symbolic
   merged extent of 272 on TIDz), and the executor then runs millions of
   threads for minutes. The generator uses TIDy instead of TIDz. */
#define KNOWN_LAUNCH_LIMITS 0

/* F10 an output with a broadcast dim whose loop is shared with a tensor that
   expands that broadcast (its consumer, or a sibling through a common
   consumer): inlined into the expanded loop, the broadcast dim's write runs
   over the expanded extent and writes out of bounds (the executor reports
   "out-of-bounds write of T3: index 56 is outside its 56 elements"). A
   failure of a case with an output holding a broadcast dim, where some binary
   op expands a broadcast, is counted as known. */
#define KNOWN_BROADCAST_OUTPUT_READ 0

/* F11 (found by the heap fault sweep, tests/fault) the executor crashes when
   a heap allocation of ix_exec_init fails: ix_exec_free frees
   x->lwritten[i] while x->lwritten is NULL (interp_mem.c:155, SIGSEGV).
   While 1, the heap sweep stops its programs before wf_run. */
#define KNOWN_EXEC_OOM_CRASH 0

/* F12 (heap fault sweep) a failed string-builder allocation in codegen is
   silent: cg_emit_cuda (cuda.c:215 -> prelude.c:68 sbuf_puts) loses the text
   and wf_compile returns a kernel (truncated or empty source) with WF_OK.
   Expected: WF_ERR_MEMORY. While 1, the heap sweep counts such silent
   failures (and prints them) but does not fail. */
#define KNOWN_SBUF_OOM_SILENT 0

/* F13 (found by the reduction fuzzer) a block reduction reads a value that
   the threads past a non-divisible split never wrote: an rfactor
   producer's partial result, or the reduction's own accumulator, whose init
   and partial steps are predicated by the split while the collective
   reads it in every thread (no predicate argument: the consumer's indices
   never bound the split). On a GPU those threads add an uninitialized
   register. Example: wf_sum of [n, 32] over both dims, split(1, 64), TIDx
   on the inner axis, rfactor(1); the executor reports "read of T2[0]
   (local memory), which was never written". Replays: fuzz -s 1 -c 7 -v,
   fuzz -s 3 -c 503 -v. Counted as known: that message in a case with a
   reduction. Fixed (lower/predicate.c: a register accumulator's init runs
   in every thread, without the bounds or thread-loop coverage predicate, so
   cells past a split or a short thread loop hold the op's initial value;
   also fuzz -s 1 -c 792; tests/unit/test_fuzz_regress_f13.c). */
#define KNOWN_REDUCTION_UNWRITTEN_READ 0

/* F14 (reduction fuzzer) a reduction output in global memory is initialized
   by every thread of a loop that does not index it: "global-memory race on
   T3[0]: thread (1, 0, 0) ... writes it after thread (0, 0, 0) ... in
   statement: T3[0] = init(max)". Replays: fuzz -s 1 -c 375 -v, fuzz -s 2
   -c 627 -v. Fixed (lower/predicate.c: an init's predicate never picks its
   one writer; test fuzz_regress_block_reduction_init_has_a_single_writer):
   all seven cases found run and match with -a. */
#define KNOWN_REDUCTION_INIT_RACE 0

/* F15 (reduction fuzzer) silent wrong results: a reduction rfactored, then
   a call that schedules several tensors at once (propagate_transforms,
   parallelize_all_like, cache_after / cache_before) -- the result is the
   right one times the extent of a thread or split axis (256 for 128, 120
   for 30.125, -18.8 for -6.27): the partials are counted again. Replays:
   fuzz -s 4 -c 344 -v, fuzz -s 5 -c 329 -v, fuzz -s 2 -c 631 -v. Counted
   as known: a wrong element in such a case. Fixed (switch 0): propagation
   keeps an rfactor producer's schedule unless the replay refines it, and
   caches of an rfactor producer are refused (tests/unit/
   test_fuzz_regress_f15.c), as is a merge of the producer's partial
   (iteration) axis with its reduction axis (fuzz -s 1 -c 55267 -a). */
#define KNOWN_RFACTOR_THEN_PROPAGATE 0

/* F16 (reduction fuzzer) a sum of a 16-bit float tensor accumulated in 16
   bits where its accumulator was the output buffer (T1[i] = T1[i] + x in
   bf16, rounding every step), not in float as docs/reductions.md says:
   a bf16 sum of 1024 values in [-10, 10] gave -127 for -111. Replays:
   fuzz -s 5 -c 5722 -v, fuzz -s 2 -c 12760 -v. Fixed (lower/reduce.c: a
   16-bit sum or product with serial reduction loops accumulates in a float
   register wf_acc<k>, rounded once into the output after the loops; tests
   tests/unit/test_fuzz_regress_f16.c). A serial iteration loop inside the
   reduction loop would need an array of registers: refused ("not supported
   yet"). */
#define KNOWN_HALF_ACCUMULATION 0

/* F17 (reduction fuzzer) other wrong results and unwritten outputs of
   cases with reductions, found in 10 s runs of seeds 1-6 after F13-F16
   were set aside, sorted (with -a, after the F16 fix) into:
   - iteration x reduction merge (8 of the 11 replays): a merge (or swizzle)
     of an iteration and a reduction axis, directly or by
     propagate_transforms / parallelize_all_like from another tensor, is a
     reduction axis over both, so the kernel reduced across the output's
     elements. Fixed: refused by lower/reduce.c (check_mixed; test
     fuzz_regress_f17_merge_of_iteration_and_reduction_axes_is_refused):
     fuzz -s 1 -c 13289, -s 2 -c 49827, -s 3 -c 20001, -s 3 -c 22142,
     -s 4 -c 30092, -s 5 -c 22387, -s 5 -c 22679, -s 6 -c 41786 are now
     rejected with a message.
   - a reduction's reader computed inside the reduction's serial loop (fixed:
     analysis/inline.c refuses to share a reduction loop with a reader of the
     reduction's result; tests/unit/test_fuzz_regress_f17.c):
     the reduced axis maps, through a broadcast of the result, to an
     iteration axis of a consumer, so both share one loop and the consumer
     reads partial sums (T3 = broadcast(T2 = sum(T1)); T7[i0] = T6[i0] * T3
     inside T2's loop over i0). Replays: fuzz -s 2 -c 53628 (9.961 for
     31.392), fuzz -s 6 -c 40417 (3.87e8 for 2.36e9).
   - a reduction whose reduced axis and broadcast (iteration) axis fall in
     one loop group (fixed: analysis/inline.c does not inline a broadcast
     axis into a loop exactly mapped to another axis of the tensor, and
     lower/index.c does not seed such a loop's index): max over dim 1 of broadcast(T1) [b, 2], whose
     broadcast is expanded by T0 (exact-mapped to T1): the reduction loop
     reads T2[i1] (the iteration loop's index) instead of its own, and runs
     over the split's 4 without a predicate. Replay: fuzz -s 1 -c 12659
     (-6.017 for -4.949).
   Fixed the same day with the switch off (tests/unit/test_fuzz_regress_f17.c):
   a reduction loop shared with another consumer's longer axis (a sum over a
   broadcast counted 32 times), 16-bit rfactor partials rounded each, a float
   accumulator's store predicated on the reduced bounds, shared-memory
   accumulators not initialized past a split's end, blocks that do not write
   a block reduction's global result reading its input, an rfactor
   producer's partial axis merged back with a reduction axis by
   propagate_transforms (8x and 2x the sum: fuzz -s 20261123 -c 276244,
   -c 286325; now refused by the mixed-merge check). Found by the executor
   (150 CPU s of seed 20261123, 1.12 million cases: 9 failures, no wrong
   value), all fixed since (issue 18; tests/unit/
   test_regress_issue18_reduce.c, test_regress_issue18_races.c). These
   replays were recorded with the F19 switches 1: set
   KNOWN_CACHE_AFTER_REDUCTION and KNOWN_RFACTOR_OF_RFACTOR to 1 to replay
   them (with 0 the generator draws other cases):
   - the never-written reads -c 672274, -c 743375, -c 1073032, -s 6 -c
     71324, -s 7 -c 43593 (the accumulator init's guards);
   - an out-of-bounds read -c 760736, races -c 895232 and -s 2 -c 51911
     (an init race): an iteration axis of extent 1 merged into a reduction
     axis took the reduction loop's index (T2[i0], T6[threadIdx.z / 16 /
     n]); a reduction output's axis of extent 1 is now indexed 0
     (lower/index.c);
   - cross-block races -c 846856, -c 1091635, -s 3 -c 33170: a grid
     reduction read, in every block, an input that one block along a
     non-reduced block dim wrote; it now reads only in the blocks that
     write its result (lower/reduce.c, lower_reduce_guard);
   - grid reductions refused at launch (work buffer too small) -s 3 -c
     92754, -s 20261123 -c 663680, -c 774211: a serial loop of 1000003
     iterations around a grid reduction (each iteration its own partial
     results); a need known at compile time is now refused by wf_compile,
     naming the loops. A need that depends on symbolic sizes is still a
     launch check, which the fuzzer counts as a failure.
   The switch is 0: the CI budget run (seed 20261123, about 90000 cases)
   finds none of these, and checks reduction values again.
   Counted as known: any wrong result or run failure of a case with a
   reduction, so that with these switches on the reduction cases still
   find crashes, sanitizer reports, leaks and unclear messages, but not
   wrong values: turn the switches off (-a) to see those. */
#define KNOWN_REDUCTION_OTHER 0

/* F18 (TMA fuzzer, fuzz_tma.c; issue 18) a TMA copy issued by several
   threads (a coordinate of the copy's consumer on TIDx) with a box or an
   element stride that does not divide its extent: the issuing threads past
   the end skip their arrive, and the executor reports a deadlock on the
   mbarrier ("deadlock: block (..) waits on mbarrier N for phase P, which
   never completes"). Fixed (issue 18: the box issue is not bounds-predicated; test_tma_basic.c);
   the switch is 0. Counted as known: an executor error naming an mbarrier or a deadlock in such a
   case. */
#define KNOWN_TMA_THREAD_ISSUE_DEADLOCK 0

/* F19 (issue 18; fixed: test_regress_issue18_reduce.c; switches 0) reductions crash with a
   cache_after of a reduction's result and with an rfactor of an rfactor
   producer. While a switch is 1 the generator makes neither (and consumes
   no random numbers for them, so every other case replays as before); with
   the switch 0 (or -a) a reduction's result gets a wf_cache_after now and
   then, and an rfactor producer an rfactor of its own. Replays (switches
   off): fuzz -s 7 -c 238 -k fusion -a -v (wf_reduce, cache_after of it,
   propagate_transforms: UBSan null member access in map_edge,
   sched/propagate.c:88), -s 8 -c 24 and -s 10 -c 648 (the same), -s 9 -c
   283 (cache_after of a sum, then compile: null member access in seed_ops,
   analysis/idgraph.c:89). An rfactor of an rfactor producer crashed in
   none of 2 x 30 CPU s (seeds 8, 9, ~75000 cases, switch 0, ~100 such
   rfactors per 3000 cases). */
#define KNOWN_CACHE_AFTER_REDUCTION 0
#define KNOWN_RFACTOR_OF_RFACTOR    0

/* F20 (TensorIR fuzzer, fuzz_tir.c; issue 18) "internal error" from the
   TensorIR schedule or build after rfactor (rfactor(k1, 2)) or a reorder
   of a reduction loop (reorder(k, j, i)). Fixed (test_tir_combos.c); the switch is 0.
   The fuzzer also counts as an internal error a TensorIR message that names
   a scheduling call of the core the user never made: after rfactor, the
   build fails with "build: T2.reorder: the new positions are not a
   permutation of 0..1: axis 0 goes to position 2" (fuzz -s 31 -c 145 -k
   tir -v: cache_write, split, rfactor(k, 2) of the relu's producer; also
   -c 2, -c 294, -c 402) or "build: T2.merge: axis 2 is out of range; T2 has
   2 loop axes" (-s 31 -c 1006: fuse(i, j), cache_write, rfactor(k, 0)).
   Counted as known: such a message, or "internal error", in a case that
   called rfactor or reorder. */
#define KNOWN_TIR_INTERNAL_ERROR 0

/* F21 (TensorIR fuzzer) reverse_compute_at of a consumer (or compute_at)
   under a producer's reduction loop is accepted by the schedule, and the
   build then fails with the core's "build: T6.inline_at(3): position 3 is
   beyond the maximum inline position 2: axis 2 of T6 is a reduction" (fuzz
   -s 31 -c 778 -k tir -v: matmul D then relu C, reverse_compute_at(C, k)).
   TVM refuses the primitive itself; weft refuses it at build, in TensorIR
   terms ("block "C" reads D inside the loop k, over which block "D"
   reduces"); the switch is 0. Counted as known: such a message in a case that called compute_at or
   reverse_compute_at. */
#define KNOWN_TIR_COMPUTE_AT_REDUCTION_LOOP 0

/* F22 (issue 18, 2026-11-28) the placement calls added after the fuzzer was
   written -- wf_tv_loop_broadcast, wf_compute_at, wf_reverse_compute_at --
   now generated in a quarter of the pointwise and reduction cases (fuzz.c,
   sched_placement). A random search of them found an internal error in
   rfactor of an axis merged from a loop broadcast (fixed, test_loopbc.c).
   1 turns the generation off (-a turns it back on). */
#define KNOWN_PLACEMENT 0

#endif
