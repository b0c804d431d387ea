"""The shape a job body sees for a placeholder in the mirrored view on several processes (step/distributed.py)."""

from __future__ import annotations

import pytest

from flowtorch._src.step.distributed import part_shape


def test_a_numpy_placeholder_is_cut_along_its_first_axis():
    assert part_shape((4, 3), 2, "job", "numpy") == (2, 3)
    assert part_shape((8,), 4, "job", "numpy") == (2,)
    assert part_shape((4, 3), 1, "job", "numpy") == (4, 3)  # one process: the whole array
    assert part_shape((4, 3), 2, "job", "list_numpy") == (4, 3)  # a ListNumpy part is already a device's


@pytest.mark.parametrize("shape", [(3, 5), ()])
def test_a_shape_that_does_not_divide_is_refused_with_the_job_named(shape):
    with pytest.raises(ValueError, match=r"job 'fit': in the mirrored view on 2 processes a tp\.Numpy placeholder"):
        part_shape(shape, 2, "fit", "numpy")
