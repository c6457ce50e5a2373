#!/usr/bin/env bash
# ncu_matmul.sh BM BN BK WARPS STAGES: where tilec's matmul (4096^3 f16) spends
# its issue slots: warp-stall reasons per issued instruction, tensor-pipe
# utilisation, shared-memory bank conflicts (GPU machine, Nsight Compute).
# KERNEL=matmul_kernel: the same for Triton's mma.sync kernel that probe.py runs;
# KERNEL=attention PROBE="attention 32 4096 64": tilec's attention.
# Also the shared-memory side: L1 data-bank reads and writes (ldmatrix, ld.shared,
# and the cp.async / st.shared writes) as a share of their peak, and wavefronts
# by instruction kind; the wgmma (gmma) pipe, the MUFU (xu: ex2) and FMA/ALU pipes, issue slots.
# KERNEL=attention_kernel PROBE="attention 32 4096 64": Triton's attention.
set -eu
cd "$(dirname "$0")"
m=smsp__average_warps_issue_stalled
ncu --target-processes all --kernel-name regex:"${KERNEL:-^matmul$}" --launch-skip 3 --launch-count 1 \
    --metrics gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,\
sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,\
sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,\
smsp__issue_active.avg.pct_of_peak_sustained_active,sm__ctas_launched.sum,launch__occupancy_limit_warps,\
smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,\
launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed,\
l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum,\
sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,\
${m}_barrier_per_issue_active.ratio,${m}_long_scoreboard_per_issue_active.ratio,\
${m}_short_scoreboard_per_issue_active.ratio,${m}_mio_throttle_per_issue_active.ratio,\
${m}_math_pipe_throttle_per_issue_active.ratio,${m}_wait_per_issue_active.ratio,\
${m}_not_selected_per_issue_active.ratio,${m}_selected_per_issue_active.ratio,\
${m}_dispatch_stall_per_issue_active.ratio,${m}_lg_throttle_per_issue_active.ratio,\
${m}_no_instruction_per_issue_active.ratio,${m}_membar_per_issue_active.ratio,\
${m}_sleeping_per_issue_active.ratio,${m}_drain_per_issue_active.ratio,${m}_imc_miss_per_issue_active.ratio,\
${m}_branch_resolving_per_issue_active.ratio,${m}_tex_throttle_per_issue_active.ratio \
    python3 probe.py ${PROBE:-matmul 4096 4096 4096} "$@" 2>&1 | grep -E "^\s+(gpu__|sm__|smsp__|launch__|l1tex__)" | sed 's/  */ /g'
