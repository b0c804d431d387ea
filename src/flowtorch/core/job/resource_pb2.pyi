from flowtorch.core.common import device_type_pb2 as _device_type_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union
from flowtorch.core.common.device_type_pb2 import DeviceType as DeviceType

DESCRIPTOR: _descriptor.FileDescriptor
kInvalidDevice: _device_type_pb2.DeviceType
kCPU: _device_type_pb2.DeviceType
kGPU: _device_type_pb2.DeviceType

class CollectiveBoxingConf(_message.Message):
    __slots__ = ("enable_fusion", "num_callback_threads", "nccl_num_streams", "nccl_fusion_threshold_mb", "nccl_fusion_all_reduce", "nccl_fusion_reduce_scatter", "nccl_fusion_all_gather", "nccl_fusion_reduce", "nccl_fusion_broadcast", "nccl_fusion_all_reduce_use_buffer", "nccl_fusion_max_ops", "nccl_enable_all_to_all", "nccl_enable_mixed_fusion")
    ENABLE_FUSION_FIELD_NUMBER: _ClassVar[int]
    NUM_CALLBACK_THREADS_FIELD_NUMBER: _ClassVar[int]
    NCCL_NUM_STREAMS_FIELD_NUMBER: _ClassVar[int]
    NCCL_FUSION_THRESHOLD_MB_FIELD_NUMBER: _ClassVar[int]
    NCCL_FUSION_ALL_REDUCE_FIELD_NUMBER: _ClassVar[int]
    NCCL_FUSION_REDUCE_SCATTER_FIELD_NUMBER: _ClassVar[int]
    NCCL_FUSION_ALL_GATHER_FIELD_NUMBER: _ClassVar[int]
    NCCL_FUSION_REDUCE_FIELD_NUMBER: _ClassVar[int]
    NCCL_FUSION_BROADCAST_FIELD_NUMBER: _ClassVar[int]
    NCCL_FUSION_ALL_REDUCE_USE_BUFFER_FIELD_NUMBER: _ClassVar[int]
    NCCL_FUSION_MAX_OPS_FIELD_NUMBER: _ClassVar[int]
    NCCL_ENABLE_ALL_TO_ALL_FIELD_NUMBER: _ClassVar[int]
    NCCL_ENABLE_MIXED_FUSION_FIELD_NUMBER: _ClassVar[int]
    enable_fusion: bool
    num_callback_threads: int
    nccl_num_streams: int
    nccl_fusion_threshold_mb: int
    nccl_fusion_all_reduce: bool
    nccl_fusion_reduce_scatter: bool
    nccl_fusion_all_gather: bool
    nccl_fusion_reduce: bool
    nccl_fusion_broadcast: bool
    nccl_fusion_all_reduce_use_buffer: bool
    nccl_fusion_max_ops: int
    nccl_enable_all_to_all: bool
    nccl_enable_mixed_fusion: bool
    def __init__(self, enable_fusion: bool = ..., num_callback_threads: _Optional[int] = ..., nccl_num_streams: _Optional[int] = ..., nccl_fusion_threshold_mb: _Optional[int] = ..., nccl_fusion_all_reduce: bool = ..., nccl_fusion_reduce_scatter: bool = ..., nccl_fusion_all_gather: bool = ..., nccl_fusion_reduce: bool = ..., nccl_fusion_broadcast: bool = ..., nccl_fusion_all_reduce_use_buffer: bool = ..., nccl_fusion_max_ops: _Optional[int] = ..., nccl_enable_all_to_all: bool = ..., nccl_enable_mixed_fusion: bool = ...) -> None: ...

class CudnnConfig(_message.Message):
    __slots__ = ("enable_cudnn", "cudnn_buf_limit_mbyte", "cudnn_conv_force_fwd_algo", "cudnn_conv_force_bwd_data_algo", "cudnn_conv_force_bwd_filter_algo", "cudnn_conv_heuristic_search_algo", "cudnn_conv_use_deterministic_algo_only", "enable_cudnn_fused_normalization_add_relu", "cudnn_conv_enable_pseudo_half")
    ENABLE_CUDNN_FIELD_NUMBER: _ClassVar[int]
    CUDNN_BUF_LIMIT_MBYTE_FIELD_NUMBER: _ClassVar[int]
    CUDNN_CONV_FORCE_FWD_ALGO_FIELD_NUMBER: _ClassVar[int]
    CUDNN_CONV_FORCE_BWD_DATA_ALGO_FIELD_NUMBER: _ClassVar[int]
    CUDNN_CONV_FORCE_BWD_FILTER_ALGO_FIELD_NUMBER: _ClassVar[int]
    CUDNN_CONV_HEURISTIC_SEARCH_ALGO_FIELD_NUMBER: _ClassVar[int]
    CUDNN_CONV_USE_DETERMINISTIC_ALGO_ONLY_FIELD_NUMBER: _ClassVar[int]
    ENABLE_CUDNN_FUSED_NORMALIZATION_ADD_RELU_FIELD_NUMBER: _ClassVar[int]
    CUDNN_CONV_ENABLE_PSEUDO_HALF_FIELD_NUMBER: _ClassVar[int]
    enable_cudnn: bool
    cudnn_buf_limit_mbyte: int
    cudnn_conv_force_fwd_algo: int
    cudnn_conv_force_bwd_data_algo: int
    cudnn_conv_force_bwd_filter_algo: int
    cudnn_conv_heuristic_search_algo: bool
    cudnn_conv_use_deterministic_algo_only: bool
    enable_cudnn_fused_normalization_add_relu: bool
    cudnn_conv_enable_pseudo_half: bool
    def __init__(self, enable_cudnn: bool = ..., cudnn_buf_limit_mbyte: _Optional[int] = ..., cudnn_conv_force_fwd_algo: _Optional[int] = ..., cudnn_conv_force_bwd_data_algo: _Optional[int] = ..., cudnn_conv_force_bwd_filter_algo: _Optional[int] = ..., cudnn_conv_heuristic_search_algo: bool = ..., cudnn_conv_use_deterministic_algo_only: bool = ..., enable_cudnn_fused_normalization_add_relu: bool = ..., cudnn_conv_enable_pseudo_half: bool = ...) -> None: ...

class Resource(_message.Message):
    __slots__ = ("machine_num", "gpu_device_num", "cpu_device_num", "comm_net_worker_num", "max_mdsave_worker_num", "use_rdma", "rdma_mem_block_mbyte", "rdma_recv_msg_buf_mbyte", "reserved_host_mem_mbyte", "reserved_device_mem_mbyte", "enable_numa_aware_cuda_malloc_host", "compute_thread_pool_size", "thread_enable_local_message_queue", "enable_thread_local_cache", "thread_local_cache_max_size", "enable_debug_mode", "collective_boxing_conf", "enable_tensor_float_32_compute", "enable_mem_chain_merge", "nccl_use_compute_stream", "disable_group_boxing_by_dst_parallel", "cudnn_conf")
    MACHINE_NUM_FIELD_NUMBER: _ClassVar[int]
    GPU_DEVICE_NUM_FIELD_NUMBER: _ClassVar[int]
    CPU_DEVICE_NUM_FIELD_NUMBER: _ClassVar[int]
    COMM_NET_WORKER_NUM_FIELD_NUMBER: _ClassVar[int]
    MAX_MDSAVE_WORKER_NUM_FIELD_NUMBER: _ClassVar[int]
    USE_RDMA_FIELD_NUMBER: _ClassVar[int]
    RDMA_MEM_BLOCK_MBYTE_FIELD_NUMBER: _ClassVar[int]
    RDMA_RECV_MSG_BUF_MBYTE_FIELD_NUMBER: _ClassVar[int]
    RESERVED_HOST_MEM_MBYTE_FIELD_NUMBER: _ClassVar[int]
    RESERVED_DEVICE_MEM_MBYTE_FIELD_NUMBER: _ClassVar[int]
    ENABLE_NUMA_AWARE_CUDA_MALLOC_HOST_FIELD_NUMBER: _ClassVar[int]
    COMPUTE_THREAD_POOL_SIZE_FIELD_NUMBER: _ClassVar[int]
    THREAD_ENABLE_LOCAL_MESSAGE_QUEUE_FIELD_NUMBER: _ClassVar[int]
    ENABLE_THREAD_LOCAL_CACHE_FIELD_NUMBER: _ClassVar[int]
    THREAD_LOCAL_CACHE_MAX_SIZE_FIELD_NUMBER: _ClassVar[int]
    ENABLE_DEBUG_MODE_FIELD_NUMBER: _ClassVar[int]
    COLLECTIVE_BOXING_CONF_FIELD_NUMBER: _ClassVar[int]
    ENABLE_TENSOR_FLOAT_32_COMPUTE_FIELD_NUMBER: _ClassVar[int]
    ENABLE_MEM_CHAIN_MERGE_FIELD_NUMBER: _ClassVar[int]
    NCCL_USE_COMPUTE_STREAM_FIELD_NUMBER: _ClassVar[int]
    DISABLE_GROUP_BOXING_BY_DST_PARALLEL_FIELD_NUMBER: _ClassVar[int]
    CUDNN_CONF_FIELD_NUMBER: _ClassVar[int]
    machine_num: int
    gpu_device_num: int
    cpu_device_num: int
    comm_net_worker_num: int
    max_mdsave_worker_num: int
    use_rdma: bool
    rdma_mem_block_mbyte: int
    rdma_recv_msg_buf_mbyte: int
    reserved_host_mem_mbyte: int
    reserved_device_mem_mbyte: int
    enable_numa_aware_cuda_malloc_host: bool
    compute_thread_pool_size: int
    thread_enable_local_message_queue: bool
    enable_thread_local_cache: bool
    thread_local_cache_max_size: int
    enable_debug_mode: bool
    collective_boxing_conf: CollectiveBoxingConf
    enable_tensor_float_32_compute: bool
    enable_mem_chain_merge: bool
    nccl_use_compute_stream: bool
    disable_group_boxing_by_dst_parallel: bool
    cudnn_conf: CudnnConfig
    def __init__(self, machine_num: _Optional[int] = ..., gpu_device_num: _Optional[int] = ..., cpu_device_num: _Optional[int] = ..., comm_net_worker_num: _Optional[int] = ..., max_mdsave_worker_num: _Optional[int] = ..., use_rdma: bool = ..., rdma_mem_block_mbyte: _Optional[int] = ..., rdma_recv_msg_buf_mbyte: _Optional[int] = ..., reserved_host_mem_mbyte: _Optional[int] = ..., reserved_device_mem_mbyte: _Optional[int] = ..., enable_numa_aware_cuda_malloc_host: bool = ..., compute_thread_pool_size: _Optional[int] = ..., thread_enable_local_message_queue: bool = ..., enable_thread_local_cache: bool = ..., thread_local_cache_max_size: _Optional[int] = ..., enable_debug_mode: bool = ..., collective_boxing_conf: _Optional[_Union[CollectiveBoxingConf, _Mapping]] = ..., enable_tensor_float_32_compute: bool = ..., enable_mem_chain_merge: bool = ..., nccl_use_compute_stream: bool = ..., disable_group_boxing_by_dst_parallel: bool = ..., cudnn_conf: _Optional[_Union[CudnnConfig, _Mapping]] = ...) -> None: ...
