"""attnlab/step/parts.py: a step's GPU time split into parts by kernel name, without torch."""

import unittest

from attnlab.step.parts import PART_NAMES, exposed_communication_us, part_of, split_into_parts

# Kernel names as the profiler reports them, each with the part it belongs to.
NAMED = [
    (
        "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
        "cutlass::bfloat16_t>, false, true>(pytorch_flash::Flash_fwd_params)",
        "attention_fwd",
    ),
    (
        "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8, 2, "
        "4, 2, false, false, cutlass::bfloat16_t>>(pytorch_flash::Flash_bwd_params)",
        "attention_bwd",
    ),
    (
        "void pytorch_flash::flash_bwd_dot_do_o_kernel<true, Flash_bwd_kernel_traits<128>>(Flash_bwd_params)",
        "attention_bwd",
    ),
    ("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x128_4x1x1_kernel0_0", "attention_fwd"),
    ("cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_4_64x128x128_4x1x1_kernel0_0", "attention_bwd"),
    (
        "void cudnn::fusion::compute_dot_do_o_specialized<true, 128>(void const*, void const*, void*, void*, "
        "unsigned int)",
        "attention_bwd",
    ),
    ("void cudnn::fusion::convert_dq_to_16bits<true>(void const*, void*, unsigned int, unsigned int)", "attention_bwd"),
    ("void attnlab::hopper::forward<__nv_bfloat16, 128, 5u>(attnlab::hopper::Params, int)", "attention_fwd"),
    ("void attnlab::hopper::backward<__nv_bfloat16, 128>(attnlab::flash::BackwardParams)", "attention_bwd"),
    (
        "void attnlab::(anonymous namespace)::row_dot<__nv_bfloat16>(__nv_bfloat16 const*, __nv_bfloat16 const*, "
        "long, int, float*, float*)",
        "attention_bwd",
    ),
    (
        "void attnlab::(anonymous namespace)::scaled_copy<__nv_bfloat16>(float const*, __nv_bfloat16*, long, float)",
        "attention_bwd",
    ),
    ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "communication"),
    (
        "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
        "FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>>",
        "optimizer",
    ),
    ("triton_red_fused__log_softmax__to_copy_nll_loss_forward_0", "loss"),
    ("nvjet_tst_256x128_64x4_2x1_v_bz_coopA_TNT", "gemm"),
    (
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel",
        "gemm",
    ),
    ("triton_poi_fused__to_copy_add_mean_mul_pow_rsqrt_1", "elementwise"),
    ("void at::native::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, true>", "elementwise"),
    ("Memset (Device)", "other"),
]


class StepParts(unittest.TestCase):
    def test_each_kernel_name_falls_in_its_part(self):
        for name, part in NAMED:
            with self.subTest(name[:60]):
                self.assertEqual(part_of(name), part)

    def test_parts_are_per_step_and_add_up(self):
        kernels = [(name, 10.0 * (i + 1), False) for i, (name, _) in enumerate(NAMED)] * 2  # two profiled steps
        parts, listed = split_into_parts(kernels, steps=2)
        self.assertEqual(list(parts), PART_NAMES)
        self.assertAlmostEqual(sum(parts.values()), sum(us for _, us, _ in kernels) / 2)
        for name, part in NAMED:
            self.assertIn(name, [n for n, _ in listed[part]])
        for kernels_of_part in listed.values():
            times = [us for _, us in kernels_of_part]
            self.assertEqual(times, sorted(times, reverse=True), "largest first")

    def test_a_kernel_inside_the_optimizers_step_is_the_optimizers(self):
        gemm, allreduce = "nvjet_tst_256x128_64x4_2x1_v_bz_coopA_TNT", "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
        self.assertEqual(part_of(gemm, in_optimizer=True), "optimizer")  # Muon's Newton-Schulz products
        self.assertEqual(part_of("Memset (Device)", in_optimizer=True), "optimizer")
        self.assertEqual(part_of(allreduce, in_optimizer=True), "communication")
        parts, listed = split_into_parts([(gemm, 30.0, False), (gemm, 10.0, True)], steps=1)
        self.assertEqual((parts["gemm"], parts["optimizer"]), (30.0, 10.0))
        self.assertEqual((listed["gemm"], listed["optimizer"]), ([(gemm, 30.0)], [(gemm, 10.0)]))

    def test_communication_is_exposed_where_no_other_kernel_runs(self):
        after_backward = [(0.0, 100.0, False), (100.0, 130.0, True)]  # all-reduce once the backward is done
        self.assertEqual(exposed_communication_us(after_backward, steps=1), 30.0)
        overlapped = [(0.0, 100.0, False), (60.0, 90.0, True), (95.0, 120.0, True)]  # two buckets, another stream
        self.assertEqual(exposed_communication_us(overlapped, steps=1), 20.0)  # 100 to 120 only
        gap = [(0.0, 10.0, False), (20.0, 30.0, False), (5.0, 25.0, True)]  # the GPU idle but for the all-reduce
        two_steps = gap + [(start + 100, end + 100, c) for start, end, c in gap]
        self.assertEqual(exposed_communication_us(two_steps, steps=2), 10.0)
        self.assertEqual(exposed_communication_us([(0.0, 5.0, False)], steps=1), 0.0)

    def test_no_profiled_step_is_refused(self):
        with self.assertRaisesRegex(ValueError, "at least 1"):
            split_into_parts([], steps=0)


if __name__ == "__main__":
    unittest.main()
