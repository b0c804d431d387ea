"""The OneFlow 0.x symbols of the surveyed programs and their status in flowtorch: the one source of truth.

``docs/compat.md`` is generated from this table (``python -m flowtorch check --write-compat docs/compat.md``,
:mod:`flowtorch._src.migrate.compat_doc`) and ``flowtorch check`` reads it, so edit here, then regenerate.
A row: the symbol as OneFlow programs write it after ``flow.`` (``tp.`` for ``oneflow.typing``, ``X().m`` for
a method of what ``X(...)`` makes), its status, notes (markdown: what differs, what is accepted), the
plain-PyTorch equivalent where one is meaningful (markdown), other names that share the row (``aliases``:
the checker maps them to it) and a qualifier shown after the symbol in the doc.
Plain data and stdlib only: ``flowtorch check`` must not import torch.
"""

from __future__ import annotations

from typing import NamedTuple

S, P, M = "supported", "partial", "missing"
STATUSES = (S, P, M)


class Row(NamedTuple):
    symbol: str
    status: str
    notes: str = ""
    torch: str = ""
    aliases: tuple[str, ...] = ()
    qualifier: str = ""


class Section(NamedTuple):
    title: str
    rows: tuple[Row, ...]
    prose: str = ""


TITLE = "OneFlow symbols in flowtorch"
INTRO = """\
Every symbol of `../shared/spec/api-surface.md` (the surveyed OneFlow 0.x programs), with its status.
`tests/api/test_compat_doc.py` checks that each supported or partial symbol resolves in flowtorch and
that every missing one does not pretend to work.

Status: **supported** (OneFlow's behaviour), **partial** (accepted; the note says what differs),
**missing** (not available: a clear error or AttributeError).

The last column is the plain-PyTorch equivalent where one is meaningful: a starting point for leaving
OneFlow's API (the notes say where OneFlow's behaviour is particular). `flowtorch check SCRIPT_OR_DIR…`
reports which of these symbols a program uses, without running it (`docs/migration/check.md`).
"""

SECTIONS: tuple[Section, ...] = (
    Section('Jobs and typing', (
        Row('float', S, '`flow.float` is `flow.float32` (torch.float32)', torch='`torch.float32`'),
        Row('float32', S, torch='`torch.float32`'),
        Row('double', S, 'float64', torch='`torch.float64`'),
        Row('float64', S, torch='`torch.float64`'),
        Row('float16', S, torch='`torch.float16`'),
        Row('int8', S, torch='`torch.int8`'),
        Row('int32', S, torch='`torch.int32`'),
        Row('int64', S, torch='`torch.int64`'),
        Row('uint8', S, torch='`torch.uint8`'),
        Row('record', S, 'the OFRecord dtype of data blobs'),
        Row('dtypes', S, '`flow.dtypes()`: the numeric dtypes, `record` and `tensor_buffer`'),
        Row('convert_oneflow_dtype_to_numpy_dtype', S, 'numpy scalar type; NotImplementedError for data dtypes'),
        Row('char', S, 'int8 storage, kChar in snapshots', torch='`torch.int8`'),
        Row('global_function', S,
            ('`type="predict"|"train"`, `function_config=`, a positional FunctionConfig (with OneFlow\'s warning); '
             'body captured once with torch.fx; steps replayed eagerly (CPU default), from a CUDA graph after 3 '
             'warm-up calls (CUDA default) or under torch.compile '
             '(`FLOWTORCH_CAPTURE=auto|eager|cuda_graph|compile`); jobs may be called from several threads (one '
             'build, calls whole, in order); an error while building or running a step names the job, the op, its '
             'blob and the body line that built it (`docs/reliability.md`); a second job of the same name warns and '
             'keeps its own train-step counter (OneFlow let it replace the first)'),
            torch=('a plain Python function or `torch.nn.Module.forward`; train jobs: `loss.backward()`, '
                   '`optimizer.step()`, `optimizer.zero_grad()`; capture: `torch.compile`')),
        Row('function_config', S, 'every registered option name; unknown names are an AssertionError as in OneFlow'),
        Row('FunctionConfig', S),
        Row('function_config().default_data_type', S,
            'applies to placeholders without dtype, get_variable and constant',
            torch='`torch.set_default_dtype`'),
        Row('function_config().default_logical_view', S,
            ('a view is required, as OneFlow asserted (anything else is an AssertionError); on several processes '
             '(`python -m flowtorch --nproc N`) the consistent view splits the logical batch and the mirrored view '
             'takes one `tp.ListNumpy` part per device (docs/architecture.md, Many devices)')),
        Row('function_config().default_distribute_strategy', P,
            'v0.1 alias of default_logical_view; recorded; a strategy object required (AssertionError otherwise)'),
        Row('function_config().train.primary_lr', S,
            'v0.1 train jobs (with `train.model_update_conf` and `losses.add_loss`)',
            torch="the optimizer's `lr=`"),
        Row('function_config().train.model_update_conf', S,
            'naive_conf, momentum_conf, adam_conf, rmsprop_conf, lars_conf',
            torch='a `torch.optim` optimizer'),
        Row('function_config().enable_auto_mixed_precision', S,
            ('the forward runs under `torch.autocast` (float16 on CUDA, bfloat16 on CPU); returned and watched blobs '
             "stay float32; with `loss_scale.dynamic_loss_scale`, OneFlow's dynamic loss scaling (inf/nan steps "
             'skipped). enable_fuse_*, use_xla_jit, enable_cudnn and the other backend flags are accepted and ignored'),
            torch='`torch.autocast` and `torch.amp.GradScaler`'),
        Row('function_config().default_initializer_conf', S, torch='`torch.nn.init`'),
        Row('tp.Numpy', S, 'fresh ndarray per call; full reductions are shape (1,)',
            torch='`Tensor.numpy()` (`.detach().cpu().numpy()`)'),
        Row('tp.Numpy.Placeholder', S,
            ("exact shape; safe dtype conversions cast, lossy ones (float → int, integers outside the declared type's "
             'range, finite floats beyond float32) a TypeError; read-only arrays copied; a shape too large for a '
             'tensor refused where declared'),
            torch='a tensor argument (`torch.from_numpy(array)`)'),
        Row('tp.Numpy.Placeholder', S,
            ('a parameter annotated with a tuple (nestable) of placeholders gets a tuple of blobs and takes a tuple '
             'of arrays; v0.1 list/tuple `*TensorDef` defaults likewise'),
            qualifier='(in `Tuple[...]`)'),
        Row('tp.ListNumpy', S,
            "one element per device: one on one process; on N processes of the mirrored view, every device's part",
            torch='a list of `Tensor.numpy()`'),
        Row('tp.ListNumpy.Placeholder', S,
            ('one array per device (N with `--nproc N`, the mirrored view; each process takes its own), ≤ declared '
             'elements, same rank')),
        Row('tp.ListListNumpy.Placeholder', P,
            ('one device: `[[array, ...]]`, a tensor list; each array of the declared rank, at most the declared '
             'number of elements in all')),
        Row('tp.ListListNumpy', P,
            'one device: `[[array, ...]]`, a tensor list (tensors of one rank, shapes may differ)'),
        Row('tp.Callback', S,
            ('`job(x)(cb)` returns before the step runs (inputs copied at the call); steps run in call order on the '
             "session's worker thread, callbacks exactly once in call order on its delivery thread; a callback's "
             'exception is re-raised at the next job call or `sync_default_session()`; at most '
             '`FLOWTORCH_MAX_INFLIGHT` (4) calls in flight. Jobs returning nothing and old-API futures run the same '
             'way'),
            torch='call the function, then the callback with the result'),
        Row('tp.Bundle', S),
        Row('FixedTensorDef', S, 'takes an `Input_<n>` name at `def` time, as OneFlow did'),
        Row('MirroredTensorDef', P, 'one device'),
        Row('MirroredTensorListDef', P,
            ('one device; a tensor list as for `tp.ListListNumpy.Placeholder`: each tensor of the declared rank, at '
             'most the declared number of elements in all')),
        Row('sync_default_session', S,
            ('waits for every launched step, watch handler and callback; re-raises the first pending error with its '
             'traceback. Interpreter exit waits up to `FLOWTORCH_EXIT_TIMEOUT` (10 s) for pending callbacks'),
            torch='`torch.cuda.synchronize()`'),
        Row('clear_default_session', S, 'drains the pipeline first', torch='make new modules and optimizers'),
        Row('enable_eager_execution', P,
            ('process-wide, kept by `clear_default_session`, refused inside a body or once a lazy job is defined (as '
             'OneFlow); jobs decorated while it is on run their body anew on every call, op by op: blobs have '
             '`.numpy()` in the body, `watch` handlers fire at once, `watch_diff` after the body, then the update; '
             "inputs must already have the placeholder's dtype (OneFlow's eager feed asserts it); results as in lazy "
             'mode (a future may be read again). Data ops on graph values run in eager jobs; not there: data from '
             "readers/loaders, gradient accumulation; indexed-slices updates are dense, as OneFlow's eager ones"),
            torch='PyTorch is eager'),
        Row('eager_execution_enabled', S, torch='PyTorch is eager'),
        Row('current_global_function_desc', S, '`IsTrainable()` and option read-back'),
        Row('unittest.TestCase', S, 'setUp clears the session and sets eager mode from `ONEFLOW_TEST_ENABLE_EAGER`',
            torch='`unittest.TestCase`'),
        Row('unittest.skip_unless_1n1d', S, 'and the other `skip_unless_*`, `unittest.env.*`',
            aliases=('unittest.skip_unless_1n2d', 'unittest.skip_unless_1n4d', 'unittest.skip_unless_2n1d',
                     'unittest.skip_unless_2n2d', 'unittest.skip_unless_2n4d',)),
        Row('unittest.register_test_cases', S,
            ("OneFlow 0.1's `1node_test.py` runners; a file that fails to import becomes one failing `test_import` "
             'instead of aborting the run. Under `pytest --oneflow-alias`, module-level `def test_x(test_case)` gets '
             'a `test_case` fixture')),
        Row('unittest.num_nodes_required', S, "OneFlow's marker attribute, read by `register_test_cases`"),
    )),
    Section('Results of unannotated jobs', (
        Row('LocalBlob', S,
            ('`.get()` / `.async_get(cb)` once per call; `.numpy()`, `.numpy(i)`, `.numpy_list()`, `.ndarray()` '
             '(warns), attribute and operator forwarding')),
    )),
    Section('Blobs', (
        Row('Blob.shape', S,
            ('and `.dtype`, `.logical_blob_name`, `.op_name`, `.blob_name`, `.unique_name`, `.batch_axis`, '
             '`.is_dynamic`'),
            torch='`Tensor.shape`'),
        Row('Blob.__add__', S,
            "OneFlow's kernel choice and names (AddN / ScalarAdd / ScalarAddByTensor / broadcast_add)",
            torch='`Tensor.__add__` (`+`)'),
        Row('Blob.__sub__', S, torch='`Tensor.__sub__` (`-`)'),
        Row('Blob.__mul__', S, torch='`Tensor.__mul__` (`*`)'),
        Row('Blob.__rmul__', S, torch='`Tensor.__rmul__`'),
        Row('Blob.__truediv__', S, torch='`Tensor.__truediv__` (`/`)'),
        Row('Blob.__mod__', S,
            ("`flow.math.mod`: floor modulo (the sign of the divisor, OneFlow's `BinaryFuncFloorMod`), "
             '`broadcast_floor_mod_<n>/z_0`; a number operand is NotImplementedError, as in OneFlow; also `__rmod__`. '
             "OneFlow's blobs have no other arithmetic operators (`//`, unary `-`, `**`)"),
            torch='`torch.remainder` (`%`)'),
        Row('Blob.__iadd__', S, 'Python falls back to `a = a + b`', torch='`Tensor.__iadd__` (`+=`, in place)'),
        Row('Blob.with_distribute', P,
            ('one device: checked (split/broadcast/auto) and the blob returned; also `with_split_distribute`, '
             '`with_broadcast_distribute`, `with_gradient_distribute`, `.distribute`, `.split_axis`, `.parallel_size` '
             '(1)')),
        Row('Blob.parallel_conf', P,
            '`device_tag()` is the placement scope the op was built in, `device_name()` is `["0:0"]`'),
        Row('oneflow_api.BlobDesc', P,
            ('`import oneflow_api` under the alias: `BlobDesc`, `ConsistentBlob`, `MirroredBlob` and the lazy ones '
             'are all the one blob class; `EagerExecutionEnabled()`')),
    )),
    Section('Config and scopes', (
        Row('config.gpu_device_num', P,
            ('an int ≥ 0 (`cpu_device_num`/`machine_num` ≥ 1); processes come from the launcher (`python -m flowtorch '
             '--nproc N`), each on one GPU (`cuda:<local_rank>`) when there is one per process, else CPU processes '
             'stand in (one warning); outside the launcher n > 1 prints how to launch'),
            torch='`torchrun --nproc-per-node N`; `torch.cuda.set_device`'),
        Row('config.enable_legacy_model_io', S, 'legacy CheckPoint save/load layout'),
        Row('config.enable_debug_mode', P, 'recorded, no effect'),
        Row('config.collective_boxing', P, 'every `config.collective_boxing.*` accepted and ignored'),
        Row('config.load_library', M,
            "raises NotImplementedError: OneFlow custom-op .so files need OneFlow's C++ runtime",
            torch='`torch.ops.load_library` (for PyTorch custom-op libraries)'),
        Row('env.ctrl_port', P,
            ("an int port in 1..65535, recorded; the launcher's `--rdzv-endpoint host:port` (or `--master-port`) is "
             'the port used'),
            torch='`torchrun --master-port` (`MASTER_PORT`)'),
        Row('env.machine', P,
            ('checked as in OneFlow (addresses or `{"addr": …}` dicts, distinct) and recorded; machines are started '
             'with `python -m flowtorch --nnodes M --nproc N --rdzv-endpoint host:port script.py` on each (more than '
             'one machine outside the launcher logs that command)'),
            torch='`torchrun --nnodes M --rdzv-endpoint host:port`'),
        Row('env.log_dir', P),
        Row('scope.placement', P,
            'recorded for `current_scope()`; "gpu" without CUDA warns once and runs on the CPU',
            torch='`torch.device`, `Tensor.to(device)`, `Module.to(device)`'),
        Row('fixed_placement', P, 'v0.1 name of scope.placement', torch='`torch.device`, `Tensor.to(device)`'),
        Row('device_prior_placement', P, 'v0.1 name of scope.placement', torch='`torch.device`, `Tensor.to(device)`'),
        Row('cast_to_current_logical_view', P,
            'one device: the blob itself (OneFlow adds an identity across views; the values are the same)',
            torch='the tensor itself'),
        Row('scope.namespace', S, '`a-b-` prefixes on ops and variables, auto names too'),
        Row('name_scope', S),
        Row('scope.consistent_view', S,
            ('the default; on several processes the logical batch is split over them: each rank takes its part of '
             'its own arrays, their checksums compared in the gradient all-reduce (ranks fed different arrays: an '
             'error naming `FLOWTORCH_DIST_FEED=rank0`, which sends rank 0\'s instead; '
             '`FLOWTORCH_DIST_FEED=trust` skips the comparison, as DDP does)'),
            torch='`DistributedDataParallel` with a `DistributedSampler`'),
        Row('scope.mirrored_view', S,
            ('on several processes each takes its `tp.ListNumpy` part; a `tp.Numpy` array is cut along its first '
             'axis, and the body sees the part\'s shape, as in OneFlow')),
        Row('current_scope', S, '`.device_parallel_desc_symbol.device_tag`'),
        Row('distribute.split', S,
            ('on variables (`get_variable(distribute=)`, `layers.dense(model_distribute=)`): each process reads its '
             'slice, matmuls run tensor-parallel; recorded on one device'),
            torch='`torch.distributed.tensor.Shard`'),
        Row('distribute.consistent_strategy', P, 'recorded'),
    )),
    Section('Watching', (
        Row('watch', S,
            ('handler annotation picks ndarray / lists / local blob; str or None prints; once per call, before a '
             'blocking call returns'),
            torch='a forward hook (`Module.register_forward_hook`) or the tensor itself (eager)'),
        Row('watch_diff', S,
            ('raw gradient (ones seed × loss scale) via Tensor.register_hook; silently skipped off the '
             'trainable-variable → loss path'),
            torch='`Tensor.register_hook`'),
        Row('watch_scope', S,
            'dict `{lbn: {"blob", "blob_def"}}` or callable form; every blob created inside, values and gradients',
            torch='`Module.register_forward_hook` / `register_full_backward_hook` on each module'),
    )),
    Section('Variables and initializers', (
        Row('get_variable', S,
            ('one store per session, shared across jobs by name; `reuse`, `trainable`, namespaces, `random_seed`; '
             '`parallel_distribution=` (v0.4 order) / `distribute=` recorded, no effect on one device'),
            torch='`torch.nn.Parameter` (a module attribute)'),
        Row('truncated_normal', S, 'resampling beyond 2σ', torch='`torch.nn.init.trunc_normal_`'),
        Row('truncated_normal_initializer', S, torch='`torch.nn.init.trunc_normal_`'),
        Row('random_uniform_initializer', S, torch='`torch.nn.init.uniform_`'),
        Row('random_normal_initializer', S, torch='`torch.nn.init.normal_`'),
        Row('constant_initializer', S, torch='`torch.nn.init.constant_`'),
        Row('zeros_initializer', S, torch='`torch.nn.init.zeros_`'),
        Row('ones_initializer', S, torch='`torch.nn.init.ones_`'),
        Row('glorot_normal_initializer', S, 'and glorot/xavier uniform, kaiming_initializer',
            torch='`torch.nn.init.xavier_normal_`',
            aliases=('xavier_normal_initializer', 'glorot_uniform_initializer', 'xavier_uniform_initializer',
                     'kaiming_initializer',)),
        Row('variance_scaling_initializer', S, torch='`torch.nn.init.kaiming_normal_` (fan-in scaling)'),
        Row('regularizers.l1', S, 'and `l2`, `l1_l2`', torch='add `lambda * param.abs().sum()` to the loss'),
        Row('regularizers.l2', S,
            torch="the optimizer's `weight_decay=` (or `lambda * param.pow(2).sum()` in the loss)"),
    )),
    Section('Ops', (
        Row('reshape', S, torch='`torch.reshape`'),
        Row('transpose', S, torch='`torch.permute`'),
        Row('matmul', S, 'also `linalg.matmul`; `alpha=` (v0.4)', torch='`torch.matmul`', aliases=('linalg.matmul',)),
        Row('concat', S, torch='`torch.cat`'),
        Row('gather', S,
            ("`batch_dims > 0` is OneFlow v0.4's `batch_gather`: the batch axes are the first `indices.ndim − 1` axes "
             "and `axis` must equal `batch_dims`; out-of-range indices raise (OneFlow's CPU kernel wrote zeros)"),
            torch='`torch.index_select` (`torch.gather` for `batch_dims`)'),
        Row('slice', S, torch='indexing (`x[a:b]`)'),
        Row('squeeze', S, torch='`torch.squeeze`'),
        Row('one_hot', S, torch='`torch.nn.functional.one_hot`'),
        Row('cast', S, torch='`Tensor.to(dtype)`'),
        Row('constant', S, torch='`torch.full`'),
        Row('math.reduce_mean', S, 'reduce_sum × 1/count, as OneFlow builds it', torch='`torch.mean`'),
        Row('math.reduce_sum', S, 'and reduce_max/min/prod/variance …', torch='`torch.sum`'),
        Row('math.gelu', S, torch='`torch.nn.functional.gelu`'),
        Row('math.tanh', S, torch='`torch.tanh`'),
        Row('nn.relu', S, torch='`torch.relu`'),
        Row('nn.leaky_relu', S, torch='`torch.nn.functional.leaky_relu`'),
        Row('nn.softmax', S, torch='`torch.softmax`'),
        Row('nn.bias_add', S, torch='`x + bias` (broadcast over the channel axis)'),
        Row('nn.conv2d', S, '"SAME" is OneFlow v0.2–v0.4\'s SAME_LOWER; "SAME_UPPER" gives TensorFlow\'s',
            torch='`torch.nn.functional.conv2d`'),
        Row('nn.conv2d_transpose', S, torch='`torch.nn.functional.conv_transpose2d`'),
        Row('nn.max_pool2d', S, torch='`torch.nn.functional.max_pool2d`'),
        Row('nn.avg_pool2d', S, torch='`torch.nn.functional.avg_pool2d`'),
        Row('nn.dropout', S, 'identity in predict jobs, 1/(1−rate) scaling in train jobs',
            torch='`torch.nn.functional.dropout`'),
        Row('nn.sparse_softmax_cross_entropy_with_logits', S,
            ('labels first; out-of-range labels give loss 0 / gradient 0 and one warning (`FLOWTORCH_STRICT_LABELS=1` '
             'raises)'),
            torch='`torch.nn.functional.cross_entropy(logits, labels, reduction="none")`'),
        Row('nn.sparse_cross_entropy', S,
            torch='`torch.nn.functional.nll_loss(torch.log(probs), labels, reduction="none")`'),
        Row('reflection_pad2d', S,
            ("v0.3.4's padding: an int pads all sides; of a list `[p0, p1, p2, p3]` rows are padded by `p2` on both "
             'sides and columns by `p3` (v0.4 read it as left, right, top, bottom); float, double, int32'),
            torch='`torch.nn.functional.pad(x, pads, mode="reflect")`'),
        Row('nn.PixelShuffle', S,
            "also `nn.PixelShufflev2(x, h_factor, w_factor)`; reshape/transpose ops named as OneFlow's",
            torch='`torch.nn.functional.pixel_shuffle`'),
        Row('nn.PixelShufflev2', S),
        Row('nn.InstanceNorm1d', S,
            ('also `InstanceNorm2d`, `InstanceNorm3d`: moments over the positions; with `affine`, variables '
             '`<name>_gamma`/`<name>_beta` of shape (1, C, 1)'),
            torch='`torch.nn.functional.instance_norm`'),
        Row('nn.InstanceNorm2d', S, torch='`torch.nn.functional.instance_norm`'),
        Row('nn.InstanceNorm3d', S, torch='`torch.nn.functional.instance_norm`'),
        Row('nn.GroupNorm', S, "OneFlow's: affine variables per group, shape (1, num_groups, 1), not per channel",
            torch='`torch.nn.functional.group_norm` (its affine parameters are per channel)'),
        Row('nn.KLDivLoss', S,
            "OneFlow's masking: without `log_target` an element counts where `int8(rint(target + 0.5)) != 0`",
            torch='`torch.nn.functional.kl_div`'),
        Row('nn.TripletMarginLoss', S, 'norms over axis 1 of `a − b + eps`; `swap=True` refused, as in OneFlow',
            torch='`torch.nn.functional.triplet_margin_loss`'),
        Row('smooth_l1_loss', S, '`SmoothL1Loss_<n>/loss_0`; the label gets no gradient',
            torch='`torch.nn.functional.smooth_l1_loss`'),
        Row('random.CoinFlip', S, torch='`torch.bernoulli`'),
        Row('random.shuffle', S, torch='`x[torch.randperm(len(x))]`'),
        Row('user_op_builder', S,
            ("also `().Op`, `().Input`, `().Output`, `().Attr` (type from the op's definition; an int is accepted for "
             'a float attr; the old explicit type name warns), `().OpName`, `().Build`, `().InferAndTryRun`, '
             "`().RemoteBlobList`, `().RemoteBlobDict`; ops of flowtorch's one registry (`ops/op_registry.py`): the "
             'unary/binary math ops, relu, sigmoid, gelu, softmax, matmul, reshape, transpose, concat, cast, add_n, '
             "bias_add, split_like, square_sum, multi_square_sum, dynamic_loss_scale_schedule, OneFlow's test ops "
             "(`ccrelu`, `TestReshape`, `TestSource`, `TestRandomSource` (OneFlow's mt19937 stream) …) and ops added "
             'with `experimental.register_user_op`; unknown op types, inputs, outputs and attrs and wrong attr types '
             'raise naming the op'),
            torch='`torch.library.custom_op`',
            aliases=('user_op_builder().Op', 'user_op_builder().Input', 'user_op_builder().Output',
                     'user_op_builder().Attr', 'user_op_builder().OpName', 'user_op_builder().Build',
                     'user_op_builder().InferAndTryRun', 'user_op_builder().RemoteBlobList',
                     'user_op_builder().RemoteBlobDict',)),
        Row('user_op_builder().SoleOutputBlob', S),
        Row('consistent_user_op_builder', S, 'one device: `user_op_builder`'),
        Row('user_op_module_builder', S,
            ('also `consistent_user_op_module_builder`, `().InputSize`, `().user_op_module.InitOpKernel()` (no-op in '
             'lazy mode)'),
            aliases=('user_op_module_builder().InputSize',)),
        Row('consistent_user_op_module_builder', S),
        Row('nn.Module', S, '`forward`, `call_seq_no`, `module_name`'),
        Row('find_or_create_module', S, 'per job; a second request for a name raises unless `reuse=True`'),
        Row('experimental.square_sum', S, '`SquareSum_<n>/y_0`, shape (1,)'),
        Row('experimental.register_user_op', S,
            ('flowtorch extension (not in OneFlow): a decorator registering a Python kernel as a `torch.library` op '
             'of a new op type, with `.register_grad(fn)` / `.register_fake(fn)`; call it in a job or build it with '
             '`user_op_builder`'),
            torch='`torch.library.custom_op`'),
        Row('experimental.custom_op_module', M,
            ("custom C++/Python-kernel ops need OneFlow's runtime; write the kernel with "
             '`experimental.register_user_op`'),
            torch='`torch.library.custom_op`, `torch.utils.cpp_extension`'),
        Row('combined_margin_loss', S,
            ('one device: `CombinedMarginLoss_<n>/y_0` (+`theta_0`); rows whose label is outside [0, classes) stay '
             'unchanged, as in OneFlow')),
        Row('math.unsorted_segment_sum', S,
            ('also `unsorted_segment_sum`; `UnsortedSegmentSum_<n>/out_0`; ids outside [0, num_segments) are dropped '
             'and get gradient 0; float16 sums accumulate in float32'),
            torch='`Tensor.index_add_` (or `scatter_add_`)',
            aliases=('unsorted_segment_sum',)),
        Row('math.unsorted_segment_sum_like', S, "also `unsorted_segment_sum_like`; only `like`'s shape is read",
            aliases=('unsorted_segment_sum_like',)),
        Row('math.unsorted_batch_segment_sum', S,
            "also `unsorted_batch_segment_sum`; gradient is OneFlow's batch_gather",
            aliases=('unsorted_batch_segment_sum',)),
        Row('math.polyval', S,
            "Horner's rule from OneFlow's own ops (`zeros_like` named `Polyval_<n>`, multiply, ScalarAdd)"),
        Row('math.tril', S, "also `nn.tril`; `Tril_<n>/out_0`; the fill value is cast to the blob's dtype",
            torch='`torch.tril`',
            aliases=('nn.tril',)),
        Row('math.reduced_shape_elem_cnt', S,
            '`ShapeElemCnt_<n>/y`, int32 unless `dtype`; counts the run-time shape of a dynamic blob'),
        Row('math.divide', S, 'integer blobs divide as C++ does (truncated toward zero)',
            torch='`torch.div` (`rounding_mode="trunc"` for integers)'),
        Row('count_not_finite', S, 'int64 (1,)', torch='`(~torch.isfinite(x)).sum()`'),
        Row('multi_count_not_finite', S, 'int64 (1,); all blobs of one dtype'),
        Row('sync_dynamic_resize', S, "the first `size[0]` rows; a dynamic blob with the input's static shape"),
        Row('assign', S, 'copies `value` into the variable `ref` when the step runs; returns None',
            torch='`Tensor.copy_` (under `torch.no_grad()`)'),
        Row('experimental.eager_assign_121', S,
            "eager mode's assign (AssertionError in lazy mode, as in OneFlow); returns `ref`",
            torch='`Tensor.copy_`'),
        Row('experimental.logical_slice', S, '`LogicalSlice_<n>/y_0`; steps must be > 0, as in OneFlow',
            torch='indexing (`x[a:b:s]`)'),
        Row('experimental.logical_slice_assign', S,
            '`LogicalSliceAssign_<n>`: the slice of a variable takes `value` when the job runs; steps > 0',
            torch='indexed assignment (`x[a:b:s] = value`)'),
        Row('experimental.get_interface_blob_value', P,
            ("the interface blobs with a value between calls: variables, by name (the session's jobs are built first, "
             'as in OneFlow)')),
        Row('experimental.set_interface_blob_value', P,
            'variables by name; shape and dtype checked, a refused value changes nothing'),
        Row('experimental.enable_typing_check', S,
            ('jobs decorated afterwards must annotate every parameter and the return; `unittest.TestCase` sets it '
             'from `ONEFLOW_TEST_ENABLE_TYPING_CHECK`')),
        Row('experimental.dynamic_binary_split', M, '(and `dynamic_binary_concat`) not implemented',
            aliases=('experimental.dynamic_binary_concat',)),
        Row('unpack', P,
            ("one step carries all `n` time pieces as a leading axis of the blob's tensor (the static shape is the "
             "piece's); ops between `unpack`/`repeat` and `pack`/`acc` see that axis as a batch axis: right for "
             'element-wise ops, broadcasting and matmul, not for ops that reduce or reshape axis 0')),
        Row('pack', P, 'see `unpack`; its input must still carry the `n` pieces (else a RuntimeError naming the op)'),
        Row('repeat', P, 'see `unpack`'),
        Row('acc', P, 'see `unpack`; sums the pieces (gradient: repeat)'),
        Row('categorical_ordinal_encode', S,
            ("ordinals 1, 2, … in order of first appearance and the table laid out as OneFlow's CPU kernel does (on "
             'every device); key 0 encodes to 0; a full table is a RuntimeError')),
        Row('experimental.indexed_slices_reduce_sum', S,
            '`(y_indices, y_values, num_unique)`; first-occurrence order; rows past `num_unique` are 0'),
        Row('experimental.ssp_variable_proxy', S,
            ('`(ref, value)`: `ref` is the variable, `value` the variable as it was `buffer_size - 1` steps before '
             '(its gradient goes to the variable)')),
        Row('function_config().enable_ssp', S,
            ('train jobs read each trainable variable through an ssp proxy with buffer `ssp_num_stages - '
             'ssp_stage_id` (from `experimental.scope.config` where it is created); '
             '`ssp_partition_strategy`/`ssp_partition_scope_ids` are recorded')),
    )),
    Section('Layers', (
        Row('layers.dense', S,
            ('v0.1 names `Dense_<N>-weight/out`, `Dense_<N>_matmul/out_0` …; weight (units, in); >2-D input flattened '
             'and restored'),
            torch='`torch.nn.Linear`'),
        Row('layers.conv2d', S, 'NCHW/NHWC, SAME/VALID/explicit padding, strides, dilation, groups; xavier default',
            torch='`torch.nn.Conv2d`'),
        Row('layers.batch_normalization', S,
            ('moving statistics updated in train jobs only; also `_relu`, `_add_relu`; on several processes each '
             "normalizes its part with its part's statistics and keeps its own moving statistics, as OneFlow's "
             "devices did (rank 0's are saved)"),
            torch='`torch.nn.BatchNorm1d` / `BatchNorm2d`'),
        Row('layers.layer_norm', S, torch='`torch.nn.LayerNorm`'),
        Row('layers.upsample_2d', S, torch='`torch.nn.Upsample`'),
        Row('layers.prelu', S, torch='`torch.nn.PReLU`'),
        Row('layers.categorical_ordinal_encoder', S,
            'non-trainable variables `<name>-Table` (2·capacity,) and `<name>-Size` (1,), op `<name>-Encode`'),
    )),
    Section('Training', (
        Row('optimizer.SGD', S, 'momentum 0.9 by default', torch='`torch.optim.SGD`'),
        Row('optimizer.SGD().minimize', S,
            ('train jobs only; a list of losses allowed; a second `minimize` in a job replaces the first (warned); '
             'integer losses (and integer `watch_diff`s) train as in OneFlow: integer gradients truncated to the '
             "blob's dtype, passed to float variables by `cast` (`step/int_grad.py`; such jobs replay eagerly)"),
            torch='`loss.backward()`, `optimizer.step()`, `optimizer.zero_grad()`'),
        Row('optimizer.Adam', S, 'no bias correction unless asked', torch='`torch.optim.Adam`'),
        Row('optimizer.Adam().minimize', S, torch='`loss.backward()`, `optimizer.step()`, `optimizer.zero_grad()`'),
        Row('optimizer.AdamW', S, torch='`torch.optim.AdamW`'),
        Row('optimizer.RMSProp', S, torch='`torch.optim.RMSprop`'),
        Row('optimizer.LARS', S),
        Row('optimizer.LazyAdam', S,
            'Adam with bias correction; row-wise lazy updates with `indexed_slices_optimizer_conf`',
            torch='`torch.optim.SparseAdam` (with sparse embedding gradients)'),
        Row('optimizer.LAMB', S),
        Row('optimizer.SGDW', S),
        Row('optimizer.CombinedOptimizer', S, torch='one `torch.optim` optimizer with parameter groups'),
        Row('optimizer.PiecewiseConstantScheduler', S, torch='`torch.optim.lr_scheduler.MultiStepLR`'),
        Row('optimizer.PiecewiseScalingScheduler', S, torch='`torch.optim.lr_scheduler.MultiStepLR`'),
        Row('optimizer.CosineScheduler', S, torch='`torch.optim.lr_scheduler.CosineAnnealingLR`'),
        Row('optimizer.PolynomialSchduler', S, "OneFlow's spelling (warns); also PolynomialScheduler",
            torch='`torch.optim.lr_scheduler.PolynomialLR`',
            aliases=('optimizer.PolynomialScheduler',)),
        Row('optimizer.warmup.linear', S, 'and `warmup.constant`',
            torch='`torch.optim.lr_scheduler.LinearLR` (in a `SequentialLR`)',
            aliases=('optimizer.warmup.constant',)),
        Row('optimizer.grad_clipping.by_global_norm', S, "OneFlow v0.3.4's formula",
            torch='`torch.nn.utils.clip_grad_norm_`'),
        Row('optimizer.loss_scale.dynamic_loss_scale', P,
            ("with `enable_auto_mixed_precision`: OneFlow's schedule (seed S, unscale, skip an inf/nan step and halve "
             'S, double after `increment_period` finite steps; S is not saved in checkpoints). Without it (float32) '
             'gradients are not scaled and inf/nan steps are not skipped'),
            torch='`torch.amp.GradScaler`'),
        Row('losses.add_loss', S,
            ("`minimize` replaces the job's loss list (OneFlow v0.4), so `add_loss(x); minimize(x)` counts x once; a "
             'loss listed twice raises'),
            torch='`loss.backward()` on the summed losses'),
    )),
    Section('Fused, hint and distributed ops (GPT, BERT, Wide&Deep)', (
        Row('nn.layer_norm', S,
            ("op-level: the caller's gamma/beta of shape `inputs.shape[begin_params_axis:]`; `LayerNorm_<n>/y_0` "
             "(+`mean_0`, `inv_variance_0`, `normalized_0`); always OneFlow's single GPU-style op"),
            torch='`torch.nn.functional.layer_norm`'),
        Row('amp_white_identity', S, 'pass-through `AmpWhiteIdentity_<n>/out_0`; no mixed precision'),
        Row('nn.fused_bias_add_gelu', S, 'erf gelu, `FusedBiasAddGelu_<n>/out_0`',
            torch='`torch.nn.functional.gelu(x + bias)`'),
        Row('nn.fused_bias_add_dropout', S,
            ('`BiasAddDropout_<n>/out_0` + `<op>-dropout_random_mask_like`; plain `bias_add` in predict jobs or at '
             'rate 0'),
            torch='`torch.nn.functional.dropout(x + bias, p)`'),
        Row('math.fused_scale_tril', S, 'also `nn.fused_scale_tril`; `FusedScaleTril_<n>/out_0`',
            torch='`torch.tril(x * scale)`',
            aliases=('nn.fused_scale_tril',)),
        Row('math.fused_scale_tril_softmax_dropout', S,
            ('also `nn.`; `FusedTrilScaleSoftmaxMaskScale_<n>/{y_0,softmax_y_0}`; no dropout in predict jobs (OneFlow '
             'applied it there)'),
            aliases=('nn.fused_scale_tril_softmax_dropout',)),
        Row('nn.fused_self_attention_query_mul_key_and_value', S,
            'returns (alpha·q@kᵀ, v), `…/{query_mul_key_0,value_0}`'),
        Row('nn.distributed_sparse_softmax_cross_entropy_with_logits', S,
            'the plain sparse softmax cross entropy on one device',
            torch='`torch.nn.functional.cross_entropy(logits, labels, reduction="none")`'),
        Row('hierarchical_parallel_cast', S, 'pass-through on one device; arguments checked'),
        Row('identity_n', S, 'a list of identities, `IdentityN_<n>/out_<i>`', torch='the tensors themselves'),
        Row('parallel_cast', S,
            ('identity on one device; on several processes it gathers or splits to the asked `distribute`; '
             '`gradient_distribute` checked and recorded')),
        Row('argwhere', S, 'a dynamic blob of static shape (numel, ndim), int32 by default',
            torch='`torch.argwhere`'),
        Row('tensor_scatter_nd_update', S, 'which update wins on repeated indices is unspecified, as in OneFlow',
            torch='`Tensor.index_put_`'),
        Row('tensor_scatter_nd_add', S, 'repeated indices accumulate',
            torch='`Tensor.index_put_(indices, updates, accumulate=True)`'),
        Row('cast_to_static_shape', S, 'a dynamic blob is checked at run time against its static shape'),
        Row('slice_update', S,
            '`SliceUpdate_<n>/y_0`; negative steps too; gradients to `x` (zero on the slice) and `update`',
            torch='indexed assignment (`x[a:b] = update`, on a clone)'),
        Row('experimental.unique_with_counts', S,
            "first-occurrence order (OneFlow's CPU kernel); past `num_unique`, `y` repeats `y[0]` and `count` is 0",
            torch='`torch.unique(x, return_inverse=True, return_counts=True)` (sorted order)'),
        Row('function_config().indexed_slices_optimizer_conf', S,
            ('lazy row updates (SGD, momentum, Adam, AdamW, LazyAdam) of listed variables read by one axis-0 gather; '
             'dense under clipping, regularizers, LARS/LAMB/RMSProp, dynamic loss scale, gradient accumulation, a '
             'second use or `watch_diff` of the variable; such jobs run eagerly under compile/cuda_graph')),
        Row('experimental.scope.config', P,
            ("v0.4's five attributes checked and recorded; `checkpointing=True` keeps activations instead of "
             'recomputing them (same numbers)'),
            torch='`torch.utils.checkpoint.checkpoint` (for `checkpointing=True`)'),
        Row('profiler.nvtx_start', S, 'pass-through `NvtxStart_<n>/out_0`; no NVTX range',
            torch='`torch.cuda.nvtx.range_push`'),
        Row('profiler.nvtx_end', S, 'pass-through `NvtxEnd_<n>/out_0`', torch='`torch.cuda.nvtx.range_pop`'),
        Row('function_config().train.num_gradient_accumulation_steps', S,
            ('n micro-steps per call for data-loader jobs, one update; fed-placeholder jobs raise '
             'NotImplementedError; micro-steps do not use the CUDA graph'),
            torch='n `backward()` calls before one `optimizer.step()`'),
    )),
    Section('Data pipeline (`flow.data`, `flow.random`, tensor buffers)', (
        Row('data.ofrecord_reader', S,
            ('part files `<prefix><n>`, cyclic epochs, `random_shuffle` (buffer shuffle), `shuffle_after_epoch`, '
             '`seed`; truncated/corrupt files raise naming file and record; on N devices (a placement, or N '
             'processes) each reads its own contiguous range of the files, `batch_size / N` records a batch, as '
             "OneFlow's devices did (each process reads only its own)"),
            torch='a `torch.utils.data.Dataset` and `DataLoader`'),
        Row('data.OFRecordRawDecoder', S,
            ('also `ofrecord_raw_decoder`; bytes read as signed int8 as OneFlow did; short lists zero-padded with '
             '`auto_zero_padding`/`dim1_varying_length` (OneFlow left stale memory)'),
            aliases=('data.ofrecord_raw_decoder',)),
        Row('data.OFRecordBytesDecoder', S, 'also `ofrecord_bytes_decoder`; a tensor buffer of int8 bytes',
            aliases=('data.ofrecord_bytes_decoder',)),
        Row('data.OFRecordImageDecoder', S, 'also `ofrecord_image_decoder`; Pillow decoding, BGR/RGB/GRAY HWC uint8',
            aliases=('data.ofrecord_image_decoder',)),
        Row('data.OFRecordImageDecoderRandomCrop', S,
            "also `ofrecord_image_decoder_random_crop`; OneFlow's crop-window algorithm, numpy random stream",
            aliases=('data.ofrecord_image_decoder_random_crop',)),
        Row('data.ofrecord_image_classification_reader', S,
            'images decoded in the loader workers; labels int32 `(N,)`'),
        Row('data.ImageDecoderRandomCropResize', S,
            ('also `image_decoder_random_crop_resize`; RGB uint8; `num_workers`/`warmup_size`/`max_num_pixels` '
             'checked and ignored'),
            aliases=('data.image_decoder_random_crop_resize',)),
        Row('data.decode_random', S,
            "filled once (at build, on the job's device) and the same every step, as OneFlow's kernel did",
            torch='`torch.empty(shape).normal_()` (or another `torch.nn.init` fill)'),
        Row('data.megatron_gpt_mmap_data_loader', S,
            ("also `MegatronGPTMMapDataLoader`; Megatron `.idx`/`.bin`, OneFlow's sample order (its mt19937 and GCC-7 "
             'shuffle reproduced), `start_from_saved_progress`; a clear error past the last sample'),
            aliases=('data.MegatronGPTMMapDataLoader',)),
        Row('data.decode_ofrecord', S,
            ('v0.1; one decode op per call (`<name>/<feature>` blobs); v0.1.2 numbers (BGR unless bgr2rgb, '
             '`(x−mean)/std`); a size mismatch is resized ("auto") where v0.1.2 aborted')),
        Row('data.BlobConf', S, 'v0.1'),
        Row('data.RawCodec', S, 'v0.1'),
        Row('data.ImageCodec', S, 'v0.1; preprocessors in list order'),
        Row('data.BytesListCodec', S, 'v0.1; int8/char blobs, one row per value'),
        Row('data.ImagePreprocessor', S, 'v0.1; `bgr2rgb`, `mirror`'),
        Row('data.ImageResizePreprocessor', S, 'v0.1; bilinear'),
        Row('data.NormByChannelPreprocessor', S, 'v0.1; `channels_first` transposes to CHW (as v0.4.0)'),
        Row('data.ofrecord_loader', S, 'v0.1 name of `ofrecord_reader`'),
        Row('data.onerec_reader', M, 'OneRec (FlatBuffers) files'),
        Row('data.coco_reader', S,
            ("OneFlow's image filter, stride/contiguous shards over the placement's devices, aspect-group batching "
             'and seeded shuffle order (its mt19937 and GCC-7 shuffle reproduced); boxes, labels, polygons and their '
             'indices as tensor buffers')),
        Row('random.CoinFlip', S, 'also `coin_flip`; a data op (feeds `CropMirrorNormalize` or the graph)',
            torch='`torch.bernoulli`',
            aliases=('random.coin_flip',)),
        Row('tensor_buffer', S, 'the dtype of tensor-buffer blobs'),
        Row('tensor_buffer_to_tensor', S),
        Row('tensor_to_tensor_buffer', S),
        Row('gen_tensor_buffer', S),
        Row('tensor_buffer_to_list_of_tensors', S, '`dynamic_out=True` gives dynamic blobs (at most `out_shape`)'),
        Row('tensor_list_to_tensor_buffer', S,
            ('each `(1, ...)` tensor of a `tp.ListListNumpy` input (or of `tensor_buffer_to_tensor_list`) becomes an '
             'element; data ops given graph blobs run in the job graph')),
        Row('tensor_buffer_to_tensor_list', S,
            ('returned as `tp.ListListNumpy` (`numpy_lists()` in the old API); element rank and count checked as '
             "OneFlow's kernel")),
        Row('tensor_list_split', S,
            ('`TensorListSplit_<n>/out_<i>`: a list declared `(N, ...)` holding exactly N tensors → N dynamic blobs, '
             'leading 1 dropped; in eager jobs too')),
    ),
        prose=('Data ops run in a per-job pipeline on `torch.utils.data` worker processes and feed the job graph on '
              'every call; see `docs/data.md`. Record order, decoded values and image arithmetic follow OneFlow '
              "v0.4.0; random streams (shuffles, crops, flips) are numpy's, seeded per op and batch, so a seed makes "
              "a run repeatable but the sequence is not OneFlow's (the GPT loader's is).")),
    Section('Image ops (`flow.image`)', (
        Row('image.Resize', S,
            ('also `image.resize`, `image_resize`; fixed size or keep-aspect (round half to even), `(w, h)` '
             'scale/size order, deprecated arguments return the image alone (with a DeprecationWarning)'),
            aliases=('image.resize', 'image_resize',)),
        Row('image.target_resize', S, 'also `image_target_resize`; returns `(image, new_size, scale)` as v0.4.0',
            aliases=('image_target_resize',)),
        Row('image.CropMirrorNormalize', S,
            ('also `image.crop_mirror_normalize`; tensor-buffer or static uint8 input, int8 mirror blob, NCHW/NHWC, '
             'multiplies by float32 1/std; `crop_pos` outside [0, 1] is an error (OneFlow read out of bounds)'),
            aliases=('image.crop_mirror_normalize',)),
        Row('image.random_crop', S, 'also `image_random_crop`', aliases=('image_random_crop',)),
        Row('image.decode', S, 'also `image_decode`; 16-bit only for grayscale PNG (Pillow)',
            aliases=('image_decode',)),
        Row('image.batch_align', S,
            'also `image_batch_align`; the declared shape, zero-padded; `alignment` must be a power of 2',
            aliases=('image_batch_align',)),
        Row('image.normalize', S, 'also `image_normalize`; `(x − mean) / std` on float buffers',
            aliases=('image_normalize',)),
        Row('image.flip', S, 'also `image_flip`; codes 0, 1, 16, 17', aliases=('image_flip',)),
        Row('detection.object_bbox_flip', S, 'also `object_bbox_flip`; `w - x - 1` box flips',
            aliases=('object_bbox_flip',)),
        Row('detection.object_bbox_scale', S, 'also `object_bbox_scale`', aliases=('object_bbox_scale',)),
        Row('detection.object_segmentation_polygon_flip', S,
            'also `object_segmentation_polygon_flip`; `w - x` point flips',
            aliases=('object_segmentation_polygon_flip',)),
        Row('detection.object_segmentation_polygon_scale', S, 'also `object_segmentation_polygon_scale`',
            aliases=('object_segmentation_polygon_scale',)),
        Row('detection.object_segmentation_polygon_to_mask', S,
            ("also `object_segmentation_polygon_to_mask`; int8 masks as OpenCV 3.4's `fillPoly` (OpenCV 4 differs on "
             '~0.1 % of pixels, along edges)'),
            aliases=('object_segmentation_polygon_to_mask',)),
    ),
        prose=("Resizing follows OpenCV's `cv::resize` geometry (what OneFlow used), not Pillow's: nearest and "
              "integer-factor area are exact, and so are uint8 linear and enlarging area (OpenCV's integer "
              "arithmetic); cubic and fractional area are within ±1 of OpenCV on uint8 (float32 within 1e-4; pip's "
              'OpenCV uses Intel IPP for float32 linear, up to 5e-4 away).')),
    Section('`oneflow.core` protobuf modules', (
        Row('core.record.record_pb2', S,
            ('`OFRecord`, `Feature`, `BytesList`, `FloatList`, `DoubleList`, `Int32List`, `Int64List` on the protobuf '
             "package (record.proto's field numbers)")),
        Row('core.common.data_type_pb2', S, 'the `DataType` enum and its `k*` constants'),
        Row('core.operator.op_conf_pb2', P, 'the `ActivationType` enum (`kNone`, `kTanH`, `kSigmoid`, `kRelu`) only'),
    )),
    Section('Checkpoints and MNIST', (
        Row('checkpoint.save', S,
            ("OneFlow's snapshot layout (`<var>/out`, `meta`, `snapshot_done`); a new target is renamed into place "
             'whole, an existing empty directory is written into (kept; PermissionError when not writable), a '
             'non-empty one refused; variable names must be single path components'),
            torch='`torch.save(module.state_dict(), path)`'),
        Row('checkpoint.get', S,
            ('opens only regular files (a named pipe is refused at once), never reads outside the snapshot (links '
             'leading out refused), never unpickles (`docs/reliability.md`)'),
            torch='`torch.load(path)`'),
        Row('load_variables', S, 'validated first: a rejected load changes nothing',
            torch='`Module.load_state_dict`'),
        Row('get_all_variables', S, 'includes optimizer state and train-step counters',
            torch='`Module.state_dict()`'),
        Row('train.CheckPoint', S,
            ('`init()`, `save()`, `load()`; legacy layout with enable_legacy_model_io (a variable name leading '
             'outside the snapshot is refused before anything is read)'),
            torch='`torch.save` / `torch.load` of `state_dict()`'),
        Row('data.load_mnist', S,
            'reads a local mnist.npz (cwd, out_dir, $FLOWTORCH_DATA); `flowtorch make-mnist` writes a synthetic one'),
        Row('onnx.export', M, torch='`torch.onnx.export`'),
    )),
)
