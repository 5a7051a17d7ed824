"""What each spec-sheet field means and why it matters for AI."""

from __future__ import annotations

EXPLANATIONS: dict[str, str] = {
    "cpu.model": "The processor's marketing name, as the kernel reports it.",
    "cpu.microarchitecture": (
        "The core design generation. It decides how many floating-point operations each core "
        "can do per clock (e.g. Zen 4 and Sapphire Rapids differ 2× in fp32 FLOP/cycle)."
    ),
    "cpu.cores": (
        "Physical cores do the work; logical cores (hyper-threads) share a core's execution "
        "units, so they add little to matrix-math throughput. A CPU is a few brilliant chefs: "
        "fast on dependent, branchy work, few in number."
    ),
    "cpu.clock": (
        "Peak math rate scales with the clock the cores hold with all of them busy. VMs often "
        "report only the nominal clock while the cores boost far past it, so gpu-tui measures "
        "it: every core runs a chain of additions, each waiting for the one before, which a "
        "core finishes at one per cycle — additions per second is the clock. The peak uses "
        "the measured clock when there is one."
    ),
    "cpu.caches": (
        "Caches keep data next to the cores. Work that fits in L2/L3 avoids the slow trip to "
        "DRAM — the CPU's version of a GPU's shared memory and L2."
    ),
    "cpu.simd": (
        "Vector and matrix instructions are how a CPU does AI math: AVX2/FMA (8 fp32 lanes), "
        "AVX-512 (16 lanes), AVX-512 BF16/VNNI for bf16/int8 dot products, AMX tiles for matrix "
        "multiply on recent Xeons; NEON/SVE on Arm. Libraries pick the widest one available."
    ),
    "cpu.numa": (
        "NUMA nodes are groups of cores with their own memory. Crossing nodes costs bandwidth "
        "and latency — pin big CPU jobs to one node when you can."
    ),
    "cpu.peak": (
        "Theoretical fp32 peak = cores × clock × FLOP per cycle per core (two FMA units × "
        "vector width × 2). Well-tuned matrix multiply reaches 70–90 % of it; most code far less."
    ),
    "memory.total": (
        "System RAM holds datasets, the CPU copy of weights and pinned staging buffers for the "
        "GPU. It is large but slow next to HBM: a server socket gives ~0.46 TB/s, an H100 3.35."
    ),
    "memory.swap": "Swap is disk pretending to be memory; if a training job swaps, it crawls.",
    "gpu.name": "The product name reported by the driver.",
    "gpu.architecture": (
        "The GPU generation (Ampere, Hopper, Blackwell …). It decides which precisions have "
        "Tensor Core support (bf16 from Ampere, fp8 from Ada/Hopper, fp4 from Blackwell)."
    ),
    "gpu.compute_capability": (
        "CUDA's version number for the chip's features (9.0 = Hopper). Libraries choose "
        "kernels by it; our peak tables are keyed on it."
    ),
    "gpu.cores": (
        "Streaming multiprocessors (SMs) are the GPU's workshops; each holds 64–128 fp32 lanes "
        "('CUDA cores') in squads of 32 (warps). An H100 has 132 SMs, 16,896 lanes: a brigade "
        "of thousands of slow cooks."
    ),
    "gpu.memory_total": (
        "VRAM must hold weights + KV cache + activations, or the model is split across GPUs. "
        "Weights = parameters × bytes: an 8B model in bf16 is ~16 GB, a 70B model ~140 GB."
    ),
    "gpu.memory_bus": (
        "Bus width × memory clock × 2 (double data rate) ÷ 8 gives the memory bandwidth. "
        "HBM has very wide buses (5120–8192 bits); GDDR narrow and fast (384 bits)."
    ),
    "gpu.clocks": (
        "Maximum SM clock and memory clock as the driver reports them. Under load the GPU "
        "may run lower when it hits its power cap or temperature limit."
    ),
    "gpu.peak_clock": (
        "The SM clock the peaks below it are computed at. Vendors quote peaks at a rated clock, "
        "often below the maximum NVML reports (H100 SXM: tensor figures at 1.83 GHz, NVML max "
        "1.98 GHz). Where gpu-tui's table has the SKU it uses that rated clock; otherwise NVML's "
        "maximum, and each peak reads 'at most' because the real one may be lower."
    ),
    "gpu.peak_fp32": (
        "Plain fp32 on the CUDA cores (no Tensor Cores): SMs × clock × 2 × fp32 lanes per SM."
    ),
    "gpu.peak_tf32": (
        "TF32 runs fp32 matrix multiply on Tensor Cores with a 10-bit mantissa. PyTorch uses "
        "it only when allowed (torch.backends.cuda.matmul.allow_tf32)."
    ),
    "gpu.peak_bf16": (
        "Dense bf16/fp16 Tensor Core rate with fp32 accumulate — what PyTorch uses for "
        "training and inference. Spec sheets often print the 2:4-sparse figure, twice this: "
        "we never show sparse as dense."
    ),
    "gpu.peak_fp8": (
        "fp8 Tensor Core rate (Ada, Hopper and later): twice bf16. Needs scaled matmuls "
        "(e.g. Transformer Engine, torch._scaled_mm)."
    ),
    "gpu.peak_bandwidth": (
        "Bytes per second from VRAM to the SMs. It sets the speed of memory-bound work: "
        "element-wise ops, normalisation and LLM decode (tokens/s ≤ bandwidth ÷ weight bytes). "
        "Often the best single predictor of inference speed."
    ),
    "gpu.power": (
        "Board power limit: default and currently enforced. When the GPU reaches it, clocks "
        "drop ('power cap'). It sizes power, cooling and much of the cost of owning GPUs."
    ),
    "gpu.pcie": (
        "The link to the CPU (the door between the chef's fridge and the brigade). Gen5 x16 "
        "moves ~64 GB/s each way — 50× less than HBM, so keep data on the GPU."
    ),
    "gpu.ecc": "Error-correcting memory: detects and fixes bit flips; standard on datacenter GPUs.",
    "gpu.mig": (
        "Multi-Instance GPU splits an A100/H100/H200 into up to 7 isolated GPUs — good for "
        "many small jobs."
    ),
    "gpu.persistence": (
        "Persistence mode keeps the driver loaded between jobs, so the first CUDA call does "
        "not pay seconds of initialisation."
    ),
    "gpu.compute_mode": (
        "Default lets many processes share the GPU; Exclusive Process allows only one."
    ),
    "gpu.temperature": (
        "Above the slowdown threshold the GPU cuts its clocks to cool down; at shutdown it "
        "turns off to protect itself."
    ),
    "gpu.nvlink": (
        "NVLink joins GPUs directly (450 GB/s each way per H100), the fast hallway between "
        "kitchens. Without it multi-GPU training talks over PCIe or the network."
    ),
    "gpu.identity": "UUID, PCI address and VBIOS identify this exact board (for bug reports).",
    "topology.links": (
        "Each GPU's ways out: NVLinks (to other GPUs, or to NVSwitches that join them all), its "
        "PCIe link to the host, and the NUMA node and CPUs nearest to it (pin data loaders there)."
    ),
    "topology.pairs": (
        "How two GPUs reach each other, as nvidia-smi topo -m says it: NV# over # bonded NVLinks, "
        "else PCIe, from PIX (one switch, fastest) to SYS (across CPU sockets, slowest)."
    ),
    "topology.p2p": (
        "Whether one GPU can read another's memory directly (peer-to-peer); without it copies "
        "between GPUs go through host memory."
    ),
    "backend.nvml": (
        "NVML is the NVIDIA Management Library that ships with the driver; gpu-tui reads all "
        "NVIDIA specs and live readings through it (package nvidia-ml-py)."
    ),
    "backend.nvml.driver_version": (
        "The NVIDIA kernel driver's version. Its first number is the branch (565.57.01 is "
        "on the R565 branch): the branch decides which CUDA releases run and which NVML "
        "readings exist, and every GPU in a cluster should run the same one."
    ),
    "backend.nvml.cuda_driver_version": (
        "The newest CUDA this driver runs. A program built with a newer CUDA toolkit (PyTorch "
        "wheels name theirs, such as cu124) fails to start on an older driver; an older "
        "toolkit runs fine."
    ),
    "backend.nvml.nvml_version": (
        "The version of the management library itself; it ships with the driver, so it "
        "follows the driver's version."
    ),
    "backend.simulated": (
        "--demo adds a SIMULATED accelerator so the panes can be shown on a machine with no "
        "GPU. Its numbers are modelled on a real product and its readings are synthetic."
    ),
    # What each health check looks at (the Specs pane's Health check rows, check-<name>).
    "check-driver": "Whether the driver answers, its version, and whether torch can use the GPUs.",
    "check-gpus": "Whether every GPU the driver lists can be opened and read.",
    "check-cpu-governor": (
        "The CPU frequency governor: 'powersave' keeps cores slow, which starves the GPUs of "
        "input (data loading, kernel launches)."
    ),
    "check-cpu-turbo": "Whether the CPU may boost past its base clock.",
    "check-cpu-clock": "The clock the cores hold with all of them busy, measured.",
    "check-pcie-link": (
        "The PCIe generation and width the GPU runs at, against the most it and its slot can "
        "do: a GPU trained down to x8 or Gen3 copies to and from the host at a half or less."
    ),
    "check-nvlink": "How many of the GPU's NVLinks are up: a link down slows every all-reduce.",
    "check-ecc": (
        "Error-correcting memory: on, and how many errors it has corrected or could not; "
        "uncorrected errors kill jobs."
    ),
    "check-remapped-rows": (
        "Memory rows the GPU has swapped for spares after errors; a pending remap needs a "
        "GPU reset, and a failed one means the GPU should be replaced."
    ),
    "check-retired-pages": (
        "Memory pages retired after errors (GPUs before the A100; newer ones remap rows)."
    ),
    "check-clocks": (
        "Whether something holds the clocks back now: the power cap, heat, or a slowdown "
        "the driver applies (idle is fine)."
    ),
    "check-temperature": "The GPU's temperature against the point where it starts to slow down.",
    "check-power-limit": (
        "The power limit set against the card's default: a lowered cap lowers the clocks "
        "under load."
    ),
    "check-persistence": (
        "Persistence mode keeps the driver loaded between jobs, so the first CUDA call does "
        "not wait for the GPU to initialise."
    ),
    "check-fabric": (
        "On NVSwitch systems, whether the GPU has joined the fabric; until it has, NVLink "
        "between GPUs does not work."
    ),
    "check-mig": "Whether the GPU is split into MIG instances (each a slice of the GPU).",
    "check-xid": (
        "Xid errors: the driver's error codes for a GPU in trouble, while checking and in the "
        "kernel log."
    ),
    "check-p2p": "Whether the GPUs can read each other's memory directly (peer-to-peer).",
    "check-all-reduce": "A measured all-reduce across the GPUs against what their links allow.",
    "check-gpu-measurements": "Why the GPU's speed was not measured.",
    "check-gemm": "Measured matrix-multiply speed against the GPU's datasheet peak.",
    "check-bandwidth": "Measured memory bandwidth against the GPU's datasheet figure.",
    "check-host-copies": "Measured copies between host and GPU against the PCIe link's rate.",
    "check-cpu-gemm": "Measured matrix-multiply speed on the CPU against its computed peak.",
    "check-cpu-bandwidth": "Measured memory bandwidth on the CPU.",
    "check-cpu-host-copies": "Measured copies within host memory.",
}


def explain(key: str) -> str:
    """The explanation for a spec-sheet row key (``cpu.simd``, ``gpu.peak_bf16`` …)."""
    return EXPLANATIONS.get(key, "")
