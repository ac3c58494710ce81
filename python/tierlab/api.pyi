"""Type stub of tierlab.api, generated from the commands' definitions by
``python -m tierlab._signature`` (do not edit; a test checks it is current)."""

import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal

PathLike = str | os.PathLike[str]

def command(*path: str, progress: bool | None = None, **options: Any) -> Any: ...
def run(workload: Mapping[str, Any], design: Mapping[str, Any], *, progress: bool | None = None, **options: Any) -> dict[str, Any]: ...

def overview(
    trace: PathLike | None = None,
    *,
    format: str | None = None,
    sort: bool = False,
    volume: int | Sequence[int] | None = None,
    start_s: float = 0.0,
    end_s: float | None = None,
    speed: float = 1.0,
    max_requests: int | None = None,
    workload: PathLike | Mapping[str, Any] | None = None,
    device: str = 'seagate-barracuda-xt-st32000641as',
    disksim: PathLike | None = None,
    catalog: PathLike | None = None,
    power_profile: str | None = None,
    spin_down_s: float | None = None,
    standby: str | None = None,
    hdd_variant: str | None = None,
    hdd_track_aligned: bool = False,
    ssd: str = 'intel-320-300gb',
    ssd_timing: Literal['internals', 'datasheet'] = 'internals',
    ssd_write_buffer: str = 'on',
    capacity_bytes: int | None = None,
    compact: bool = False,
    tw_s: float = 60.0,
    lt: int | None = None,
    ht: int | None = None,
    write_policy: str = 'write-back',
    replacement: str = 'lru',
    populated: bool = False,
    empty: bool = False,
    policy_param: str | Sequence[str] | None = None,
    replay: Literal['open', 'closed'] | None = None,
    depth: int = 1,
    scheduler: str = 'fcfs',
    wrap: bool = False,
    batch_requests: int = 1000,
    target_interval: float = 0.05,
    run_requests: int = 400000,
    no_warmup: bool = False,
    ssd_fraction: float = 0.25,
    extent_bytes: int = 1048576,
    pt: int = 2,
    mcml: int = 4,
    years: float = 5.0,
    prices: str = 'greendm-2012',
    tariff: str = 'lipa-285-recent',
    read_effect: float = 0.1,
    demand_billing: str = 'monthly',
    progress: bool | None = None,
) -> dict[str, Any]:
    """
    What each design costs on one workload, and a verdict: the main job.

    ``tierlab overview``: What each design costs on one workload: SSD-only, HDD-only,
    linear, GreenDM tiering and caching, with throughput, mean latency, energy, wear and
    cost over the drive's life, and a verdict (fastest, cheapest, best per dollar). The
    default

    Parameters
    ----------
    trace : path, optional
        Replay this trace file (any format `tierlab trace formats` lists)
    format : str, optional
        Trace format; detected from the content when absent (`tierlab trace formats` lists
        them)
    sort : bool, optional
        Reorder requests whose timestamps run backwards (within a bounded window) instead of
        stopping with an error
    volume : int, or a list of them, optional
        Keep only requests to this volume (repeatable)
    start_s : float, default 0.0
        Skip requests before this many seconds into the trace
    end_s : float, optional
        Stop at this many seconds into the trace
    speed : float, default 1.0
        Replay this many times faster (times are divided by it)
    max_requests : int, optional
        Read at most this many requests
    workload : path or dict (the file's TOML), optional
        A synthetic workload TOML file (see `tierlab workload show`); the bundled default
        workload is used when neither trace nor workload is given
    device : str, default 'seagate-barracuda-xt-st32000641as'
        A drive from the catalog (`tierlab catalog list`)
    disksim : path, optional
        Use a DiskSim drive description (a directory with .parv/.diskspecs/.model/.seek)
        instead of a catalog drive. Its timing is validated; it has no power figures
    catalog : path, optional
        Read the catalog from this directory (with an `hdd/` folder) instead of the built-in
        one
    power_profile : str, optional
        The catalog drive's power profile (default: its first)
    spin_down_s : float, optional
        Spin the disk down after this many seconds idle (default: never)
    standby : str, optional
        The standby level a spin-down enters (default: the deepest the profile has)
    hdd_variant : str, optional
        Another drive of the catalog model with its own measured track sizes (one of the
        variants its layout lists, e.g. `hdd_variant "J20 TK 7GK"`)
    hdd_track_aligned : bool, optional
        Lay the disk's space inside its tracks: 4 KiB blocks that straddle a track boundary
        are never used, and a request crossing a boundary becomes one command per track
    ssd : str, default 'intel-320-300gb'
        The SSD, from the SSD catalog (catalog/ssd)
    ssd_timing : one of 'internals', 'datasheet', default 'internals'
        How the SSD is timed: from its internals (NAND, FTL, garbage collection), or from
        its data sheet (latency, bandwidth, IOPS; the catalog entry needs a [datasheet])
    ssd_write_buffer : str, default 'on'
        The SSD's write buffer, timed from its internals: `on` (as its catalog entry gives
        it; none where it gives none), `off` (every write waits for its NAND program, as in
        FlashSim), or a size in bytes with the entry's other buffer figures
    capacity_bytes : int, optional
        Capacity the hybrid drive exposes. Default: the workload's span, or the highest
        address the trace uses (its volumes laid end to end)
    compact : bool, optional
        Pack the extents a trace touches densely (in address order) instead of laying its
        volumes end to end: for traces of large, sparsely used volumes
    tw_s : float, default 60.0
        Time window TW in seconds
    lt : int, optional
        Tiering: demotion starts at this many free SSD extents (LT) (default: HT/2 with HT
        set, else GreenDM's 64, scaled down on an SSD under 512 extents)
    ht : int, optional
        Tiering: demotion stops at this many free SSD extents (HT) (default: GreenDM's 128
        while that is at most a quarter of the SSD's extents, else a quarter of them)
    write_policy : str, default 'write-back'
        Caching: write-back, write-through or write-around
    replacement : str, default 'lru'
        Caching: fifo, lru, arc, 2q or wsclock
    populated : bool, optional
        Tiering: start with the drive full, its data laid in address order (SSD first), as a
        drive in service holds its data. The default; see empty
    empty : bool, optional
        Tiering: start new and empty instead (extents mapped on first touch, SSD first):
        reads of never-written extents then cost no device I/O, so this measures a drive
        before its data arrives, not one in service
    policy_param : str, or a list of them, optional
        Set a policy tunable by name once the drive is built, e.g. `redirect_p=0.5`,
        `hdd_predictor=1` or `idle_s=0.5` for mixdyn (repeatable; the names are the policy's
        `params`)
    replay : one of 'open', 'closed', optional
        Open-loop replay follows arrival times; closed-loop keeps depth outstanding.
        Default: open for `simulate`, closed for `compare`
    depth : int, default 1
        Requests outstanding in closed-loop replay
    scheduler : str, default 'fcfs'
        Device queue scheduler: fcfs, sstf, clook (by cylinder), clook-lba (by block
        address, as a host elevator), sptf (a drive's command queue: the quickest to reach
        of the 32 oldest) or clook-lba+sptf (the elevator feeding the drive's queue)
    wrap : bool, optional
        Fold requests beyond the device's end back into it instead of stopping (for traces
        recorded on larger volumes)
    batch_requests : int, default 1000
        Host requests per batch: the unit the warm-up, run length and intervals are judged
        in
    target_interval : float, default 0.05
        Stop a run once every key figure's 95 % interval is within this share of its mean
    run_requests : int, default 400000
        Take at most this many requests per run, warm-up included (a synthetic workload
        generates on from its seed, a trace plays pass after pass until then); a warm-up not
        over by half of them is cut there and marked
    no_warmup : bool, optional
        Measure from the first request instead of detecting the end of the warm-up
    ssd_fraction : float, default 0.25
        The SSD's share of the drive's capacity (tiering, linear), or the cache's size as a
        share of the capacity (caching)
    extent_bytes : int, default 1048576
        Extent size ES in bytes (a multiple of 4 KiB, at most 1 MiB)
    pt : int, default 2
        Promotion (tiering) or pre-fetch (caching) threshold PT
    mcml : int, default 4
        Maximum concurrent migrations MCML
    years : float, default 5.0
        The drive's life: each design is priced over this many years
    prices : str, default 'greendm-2012'
        Device prices and rated limits (catalog/cost)
    tariff : str, default 'lipa-285-recent'
        Electricity tariff (catalog/cost)
    read_effect : float, default 0.1
        SSD wear counts reads times this ratio as well as writes (the GreenDM dissertation
        prices its costs at 1/10 and also reports 1/100)
    demand_billing : str, default 'monthly'
        How often the tariff's demand charge is paid: `monthly`, as bills are issued, or
        `per-run` (the research's model: once per pass of the workload)
    progress : bool, optional
        Show a progress bar (default: on a terminal or in a notebook).

    Returns
    -------
    dict[str, Any]
        The report ``tierlab overview --json`` prints, as Python objects.
    """

def simulate(
    trace: PathLike | None = None,
    *,
    format: str | None = None,
    sort: bool = False,
    volume: int | Sequence[int] | None = None,
    start_s: float = 0.0,
    end_s: float | None = None,
    speed: float = 1.0,
    max_requests: int | None = None,
    workload: PathLike | Mapping[str, Any] | None = None,
    device: str = 'seagate-barracuda-xt-st32000641as',
    disksim: PathLike | None = None,
    catalog: PathLike | None = None,
    power_profile: str | None = None,
    spin_down_s: float | None = None,
    standby: str | None = None,
    hdd_variant: str | None = None,
    hdd_track_aligned: bool = False,
    ssd: str = 'intel-320-300gb',
    ssd_timing: Literal['internals', 'datasheet'] = 'internals',
    ssd_write_buffer: str = 'on',
    capacity_bytes: int | None = None,
    compact: bool = False,
    tw_s: float = 60.0,
    lt: int | None = None,
    ht: int | None = None,
    write_policy: str = 'write-back',
    replacement: str = 'lru',
    populated: bool = False,
    empty: bool = False,
    policy_param: str | Sequence[str] | None = None,
    replay: Literal['open', 'closed'] | None = None,
    depth: int = 1,
    scheduler: str = 'fcfs',
    wrap: bool = False,
    batch_requests: int = 1000,
    target_interval: float = 0.05,
    run_requests: int = 400000,
    no_warmup: bool = False,
    mode: Literal['tiering', 'caching', 'linear', 'ssd-only', 'hdd-only', 'mixdyn', 'static4k'] | None = None,
    ssd_fraction: float = 0.25,
    extent_bytes: int = 1048576,
    pt: int = 2,
    mcml: int = 4,
    measure: bool = False,
    progress: bool | None = None,
) -> dict[str, Any]:
    """
    One workload on one device or hybrid drive (the bundled default workload on the default disk when neither ``trace`` nor ``workload`` is given).

    ``tierlab simulate``: Replay a trace or synthetic workload against a device and report
    latency, throughput, energy and wear. With no arguments: the bundled default workload on
    the default HDD

    Parameters
    ----------
    trace : path, optional
        Replay this trace file (any format `tierlab trace formats` lists)
    format : str, optional
        Trace format; detected from the content when absent (`tierlab trace formats` lists
        them)
    sort : bool, optional
        Reorder requests whose timestamps run backwards (within a bounded window) instead of
        stopping with an error
    volume : int, or a list of them, optional
        Keep only requests to this volume (repeatable)
    start_s : float, default 0.0
        Skip requests before this many seconds into the trace
    end_s : float, optional
        Stop at this many seconds into the trace
    speed : float, default 1.0
        Replay this many times faster (times are divided by it)
    max_requests : int, optional
        Read at most this many requests
    workload : path or dict (the file's TOML), optional
        A synthetic workload TOML file (see `tierlab workload show`); the bundled default
        workload is used when neither trace nor workload is given
    device : str, default 'seagate-barracuda-xt-st32000641as'
        A drive from the catalog (`tierlab catalog list`)
    disksim : path, optional
        Use a DiskSim drive description (a directory with .parv/.diskspecs/.model/.seek)
        instead of a catalog drive. Its timing is validated; it has no power figures
    catalog : path, optional
        Read the catalog from this directory (with an `hdd/` folder) instead of the built-in
        one
    power_profile : str, optional
        The catalog drive's power profile (default: its first)
    spin_down_s : float, optional
        Spin the disk down after this many seconds idle (default: never)
    standby : str, optional
        The standby level a spin-down enters (default: the deepest the profile has)
    hdd_variant : str, optional
        Another drive of the catalog model with its own measured track sizes (one of the
        variants its layout lists, e.g. `hdd_variant "J20 TK 7GK"`)
    hdd_track_aligned : bool, optional
        Lay the disk's space inside its tracks: 4 KiB blocks that straddle a track boundary
        are never used, and a request crossing a boundary becomes one command per track
    ssd : str, default 'intel-320-300gb'
        The SSD, from the SSD catalog (catalog/ssd)
    ssd_timing : one of 'internals', 'datasheet', default 'internals'
        How the SSD is timed: from its internals (NAND, FTL, garbage collection), or from
        its data sheet (latency, bandwidth, IOPS; the catalog entry needs a [datasheet])
    ssd_write_buffer : str, default 'on'
        The SSD's write buffer, timed from its internals: `on` (as its catalog entry gives
        it; none where it gives none), `off` (every write waits for its NAND program, as in
        FlashSim), or a size in bytes with the entry's other buffer figures
    capacity_bytes : int, optional
        Capacity the hybrid drive exposes. Default: the workload's span, or the highest
        address the trace uses (its volumes laid end to end)
    compact : bool, optional
        Pack the extents a trace touches densely (in address order) instead of laying its
        volumes end to end: for traces of large, sparsely used volumes
    tw_s : float, default 60.0
        Time window TW in seconds
    lt : int, optional
        Tiering: demotion starts at this many free SSD extents (LT) (default: HT/2 with HT
        set, else GreenDM's 64, scaled down on an SSD under 512 extents)
    ht : int, optional
        Tiering: demotion stops at this many free SSD extents (HT) (default: GreenDM's 128
        while that is at most a quarter of the SSD's extents, else a quarter of them)
    write_policy : str, default 'write-back'
        Caching: write-back, write-through or write-around
    replacement : str, default 'lru'
        Caching: fifo, lru, arc, 2q or wsclock
    populated : bool, optional
        Tiering: start with the drive full, its data laid in address order (SSD first), as a
        drive in service holds its data. The default; see empty
    empty : bool, optional
        Tiering: start new and empty instead (extents mapped on first touch, SSD first):
        reads of never-written extents then cost no device I/O, so this measures a drive
        before its data arrives, not one in service
    policy_param : str, or a list of them, optional
        Set a policy tunable by name once the drive is built, e.g. `redirect_p=0.5`,
        `hdd_predictor=1` or `idle_s=0.5` for mixdyn (repeatable; the names are the policy's
        `params`)
    replay : one of 'open', 'closed', optional
        Open-loop replay follows arrival times; closed-loop keeps depth outstanding.
        Default: open for `simulate`, closed for `compare`
    depth : int, default 1
        Requests outstanding in closed-loop replay
    scheduler : str, default 'fcfs'
        Device queue scheduler: fcfs, sstf, clook (by cylinder), clook-lba (by block
        address, as a host elevator), sptf (a drive's command queue: the quickest to reach
        of the 32 oldest) or clook-lba+sptf (the elevator feeding the drive's queue)
    wrap : bool, optional
        Fold requests beyond the device's end back into it instead of stopping (for traces
        recorded on larger volumes)
    batch_requests : int, default 1000
        Host requests per batch: the unit the warm-up, run length and intervals are judged
        in
    target_interval : float, default 0.05
        Stop a run once every key figure's 95 % interval is within this share of its mean
    run_requests : int, default 400000
        Take at most this many requests per run, warm-up included (a synthetic workload
        generates on from its seed, a trace plays pass after pass until then); a warm-up not
        over by half of them is cut there and marked
    no_warmup : bool, optional
        Measure from the first request instead of detecting the end of the warm-up
    mode : one of 'tiering', 'caching', 'linear', 'ssd-only', 'hdd-only', 'mixdyn', 'static4k', optional
        Run this drive design instead of the HDD (device) alone: a hybrid built from an SSD
        and the HDD, or one of the two alone
    ssd_fraction : float, default 0.25
        The SSD's share of the drive's capacity (tiering, linear), or the cache's size as a
        share of the capacity (caching)
    extent_bytes : int, default 1048576
        Extent size ES in bytes (a multiple of 4 KiB, at most 1 MiB)
    pt : int, default 2
        Promotion (tiering) or pre-fetch (caching) threshold PT
    mcml : int, default 4
        Maximum concurrent migrations MCML
    measure : bool, optional
        Measure at steady state, as `overview` and `compare` always do
        (docs/measurement.md): warm up until the figures settle, go on until their 95 %
        intervals are narrow (a trace played again, a workload generated on), stop when the
        load cannot be sustained; the report covers the measured part and says how
    progress : bool, optional
        Show a progress bar (default: on a terminal or in a notebook).

    Returns
    -------
    dict[str, Any]
        The report ``tierlab simulate --json`` prints, as Python objects.
    """

def compare(
    trace: PathLike | None = None,
    *,
    format: str | None = None,
    sort: bool = False,
    volume: int | Sequence[int] | None = None,
    start_s: float = 0.0,
    end_s: float | None = None,
    speed: float = 1.0,
    max_requests: int | None = None,
    workload: PathLike | Mapping[str, Any] | None = None,
    device: str = 'seagate-barracuda-xt-st32000641as',
    disksim: PathLike | None = None,
    catalog: PathLike | None = None,
    power_profile: str | None = None,
    spin_down_s: float | None = None,
    standby: str | None = None,
    hdd_variant: str | None = None,
    hdd_track_aligned: bool = False,
    ssd: str = 'intel-320-300gb',
    ssd_timing: Literal['internals', 'datasheet'] = 'internals',
    ssd_write_buffer: str = 'on',
    capacity_bytes: int | None = None,
    compact: bool = False,
    tw_s: float = 60.0,
    lt: int | None = None,
    ht: int | None = None,
    write_policy: str = 'write-back',
    replacement: str = 'lru',
    populated: bool = False,
    empty: bool = False,
    policy_param: str | Sequence[str] | None = None,
    replay: Literal['open', 'closed'] | None = None,
    depth: int = 1,
    scheduler: str = 'fcfs',
    wrap: bool = False,
    batch_requests: int = 1000,
    target_interval: float = 0.05,
    run_requests: int = 400000,
    no_warmup: bool = False,
    mode: Literal['tiering', 'caching', 'linear', 'ssd-only', 'hdd-only', 'mixdyn', 'static4k'] | Sequence[Literal['tiering', 'caching', 'linear', 'ssd-only', 'hdd-only', 'mixdyn', 'static4k']] = ['ssd-only', 'hdd-only', 'linear', 'tiering', 'caching'],
    ssd_fraction: float | Sequence[float] = [0.25, 0.125],
    extent_bytes: int | Sequence[int] = [1048576, 262144],
    pt: int | Sequence[int] = [2, 8],
    mcml: int | Sequence[int] = [4],
    prices: str = 'greendm-2012',
    tariff: str = 'lipa-285-recent',
    read_effect: float = 0.1,
    demand_billing: str = 'monthly',
    years: float = 5.0,
    csv: PathLike | None = None,
    html: PathLike | None = None,
    progress: bool | None = None,
) -> list[dict[str, Any]]:
    """
    The matrix of designs in the four currencies, one dict per configuration (a configuration that could not run has ``error``).

    ``tierlab compare``: Run one workload on a matrix of drive designs (SSD-only, HDD-only,
    linear, GreenDM tiering and caching over sweeps of SSD share, PT and ES) and report
    performance, energy, endurance and cost over α runs, as a table, JSON, CSV or HTML

    Parameters
    ----------
    trace : path, optional
        Replay this trace file (any format `tierlab trace formats` lists)
    format : str, optional
        Trace format; detected from the content when absent (`tierlab trace formats` lists
        them)
    sort : bool, optional
        Reorder requests whose timestamps run backwards (within a bounded window) instead of
        stopping with an error
    volume : int, or a list of them, optional
        Keep only requests to this volume (repeatable)
    start_s : float, default 0.0
        Skip requests before this many seconds into the trace
    end_s : float, optional
        Stop at this many seconds into the trace
    speed : float, default 1.0
        Replay this many times faster (times are divided by it)
    max_requests : int, optional
        Read at most this many requests
    workload : path or dict (the file's TOML), optional
        A synthetic workload TOML file (see `tierlab workload show`); the bundled default
        workload is used when neither trace nor workload is given
    device : str, default 'seagate-barracuda-xt-st32000641as'
        A drive from the catalog (`tierlab catalog list`)
    disksim : path, optional
        Use a DiskSim drive description (a directory with .parv/.diskspecs/.model/.seek)
        instead of a catalog drive. Its timing is validated; it has no power figures
    catalog : path, optional
        Read the catalog from this directory (with an `hdd/` folder) instead of the built-in
        one
    power_profile : str, optional
        The catalog drive's power profile (default: its first)
    spin_down_s : float, optional
        Spin the disk down after this many seconds idle (default: never)
    standby : str, optional
        The standby level a spin-down enters (default: the deepest the profile has)
    hdd_variant : str, optional
        Another drive of the catalog model with its own measured track sizes (one of the
        variants its layout lists, e.g. `hdd_variant "J20 TK 7GK"`)
    hdd_track_aligned : bool, optional
        Lay the disk's space inside its tracks: 4 KiB blocks that straddle a track boundary
        are never used, and a request crossing a boundary becomes one command per track
    ssd : str, default 'intel-320-300gb'
        The SSD, from the SSD catalog (catalog/ssd)
    ssd_timing : one of 'internals', 'datasheet', default 'internals'
        How the SSD is timed: from its internals (NAND, FTL, garbage collection), or from
        its data sheet (latency, bandwidth, IOPS; the catalog entry needs a [datasheet])
    ssd_write_buffer : str, default 'on'
        The SSD's write buffer, timed from its internals: `on` (as its catalog entry gives
        it; none where it gives none), `off` (every write waits for its NAND program, as in
        FlashSim), or a size in bytes with the entry's other buffer figures
    capacity_bytes : int, optional
        Capacity the hybrid drive exposes. Default: the workload's span, or the highest
        address the trace uses (its volumes laid end to end)
    compact : bool, optional
        Pack the extents a trace touches densely (in address order) instead of laying its
        volumes end to end: for traces of large, sparsely used volumes
    tw_s : float, default 60.0
        Time window TW in seconds
    lt : int, optional
        Tiering: demotion starts at this many free SSD extents (LT) (default: HT/2 with HT
        set, else GreenDM's 64, scaled down on an SSD under 512 extents)
    ht : int, optional
        Tiering: demotion stops at this many free SSD extents (HT) (default: GreenDM's 128
        while that is at most a quarter of the SSD's extents, else a quarter of them)
    write_policy : str, default 'write-back'
        Caching: write-back, write-through or write-around
    replacement : str, default 'lru'
        Caching: fifo, lru, arc, 2q or wsclock
    populated : bool, optional
        Tiering: start with the drive full, its data laid in address order (SSD first), as a
        drive in service holds its data. The default; see empty
    empty : bool, optional
        Tiering: start new and empty instead (extents mapped on first touch, SSD first):
        reads of never-written extents then cost no device I/O, so this measures a drive
        before its data arrives, not one in service
    policy_param : str, or a list of them, optional
        Set a policy tunable by name once the drive is built, e.g. `redirect_p=0.5`,
        `hdd_predictor=1` or `idle_s=0.5` for mixdyn (repeatable; the names are the policy's
        `params`)
    replay : one of 'open', 'closed', optional
        Open-loop replay follows arrival times; closed-loop keeps depth outstanding.
        Default: open for `simulate`, closed for `compare`
    depth : int, default 1
        Requests outstanding in closed-loop replay
    scheduler : str, default 'fcfs'
        Device queue scheduler: fcfs, sstf, clook (by cylinder), clook-lba (by block
        address, as a host elevator), sptf (a drive's command queue: the quickest to reach
        of the 32 oldest) or clook-lba+sptf (the elevator feeding the drive's queue)
    wrap : bool, optional
        Fold requests beyond the device's end back into it instead of stopping (for traces
        recorded on larger volumes)
    batch_requests : int, default 1000
        Host requests per batch: the unit the warm-up, run length and intervals are judged
        in
    target_interval : float, default 0.05
        Stop a run once every key figure's 95 % interval is within this share of its mean
    run_requests : int, default 400000
        Take at most this many requests per run, warm-up included (a synthetic workload
        generates on from its seed, a trace plays pass after pass until then); a warm-up not
        over by half of them is cut there and marked
    no_warmup : bool, optional
        Measure from the first request instead of detecting the end of the warm-up
    mode : one of 'tiering', 'caching', 'linear', 'ssd-only', 'hdd-only', 'mixdyn', 'static4k', or a list of them, default ['ssd-only', 'hdd-only', 'linear', 'tiering', 'caching']
        The designs to run (the others are left out): ssd-only, hdd-only, linear, tiering,
        caching. `mode tiering ssd_fraction 0.25 pt 2 extent_bytes 1M mcml 4` is one run
    ssd_fraction : float, or a list of them, default [0.25, 0.125]
        SSD shares of the capacity to try for tiering and caching
    extent_bytes : int, or a list of them, default [1048576, 262144]
        Extent sizes (bytes) to try
    pt : int, or a list of them, default [2, 8]
        Promotion / pre-fetch thresholds to try
    mcml : int, or a list of them, default [4]
        Concurrent-migration limits to try
    prices : str, default 'greendm-2012'
        Device prices and rated limits (catalog/cost)
    tariff : str, default 'lipa-285-recent'
        Electricity tariff (catalog/cost)
    read_effect : float, default 0.1
        SSD wear counts reads times this ratio as well as writes (the GreenDM dissertation
        prices its costs at 1/10 and also reports 1/100)
    demand_billing : str, default 'monthly'
        How often the tariff's demand charge is paid: `monthly`, as bills are issued, or
        `per-run` (the research's model: once per pass of the workload)
    years : float, default 5.0
        Each row is also priced over this many years (the workload at its own rate)
    csv : path, optional
        Also write the table as CSV here
    html : path, optional
        Also write a self-contained HTML report with charts here
    progress : bool, optional
        Show a progress bar (default: on a terminal or in a notebook).

    Returns
    -------
    list[dict[str, Any]]
        The report ``tierlab compare --json`` prints, as Python objects.
    """

def trace_stats(
    file: PathLike,
    *,
    format: str | None = None,
    sort: bool = False,
    volume: int | Sequence[int] | None = None,
    start_s: float = 0.0,
    end_s: float | None = None,
    speed: float = 1.0,
    max_requests: int | None = None,
    progress: bool | None = None,
) -> dict[str, Any]:
    """
    Requests, bytes, sizes, rates, working set, per volume.

    ``tierlab trace stats``: Count requests, bytes, sizes, working set, sequentiality and
    volumes in a trace

    Parameters
    ----------
    file : path
        The trace file (gzip, bzip2, xz and zstd are undone transparently)
    format : str, optional
        Trace format; detected from the content when absent (`tierlab trace formats` lists
        them)
    sort : bool, optional
        Reorder requests whose timestamps run backwards (within a bounded window) instead of
        stopping with an error
    volume : int, or a list of them, optional
        Keep only requests to this volume (repeatable)
    start_s : float, default 0.0
        Skip requests before this many seconds into the trace
    end_s : float, optional
        Stop at this many seconds into the trace
    speed : float, default 1.0
        Replay this many times faster (times are divided by it)
    max_requests : int, optional
        Read at most this many requests
    progress : bool, optional
        Show a progress bar (default: on a terminal or in a notebook).

    Returns
    -------
    dict[str, Any]
        The report ``tierlab trace stats --json`` prints, as Python objects.
    """

def trace_classes(
    file: PathLike,
    *,
    format: str | None = None,
    sort: bool = False,
    volume: int | Sequence[int] | None = None,
    start_s: float = 0.0,
    end_s: float | None = None,
    speed: float = 1.0,
    max_requests: int | None = None,
    classes: int = 17,
    record_size: int = '1M',
    hot_iops: float = 1.0,
    hot_window: int = 1,
    size_edges: int | Sequence[int] = ['4K,16K,64K'],
    progress: bool | None = None,
) -> dict[str, Any]:
    """
    HybridStore's data classes of a trace.

    ``tierlab trace classes``: Cut the address space into records (1 MiB) and group them
    into HybridStore's data classes: hot or cold (above 1 IOPS in some second), read or
    write (majority of requests), request-size bin, and with `--classes 33` an intensity
    bin; per class its size and the 95th percentile of its per-second bandwidth (the
    capacity planner's S_j, F_j)

    Parameters
    ----------
    file : path
        (no help)
    format : str, optional
        Trace format; detected from the content when absent (`tierlab trace formats` lists
        them)
    sort : bool, optional
        Reorder requests whose timestamps run backwards (within a bounded window) instead of
        stopping with an error
    volume : int, or a list of them, optional
        Keep only requests to this volume (repeatable)
    start_s : float, default 0.0
        Skip requests before this many seconds into the trace
    end_s : float, optional
        Stop at this many seconds into the trace
    speed : float, default 1.0
        Replay this many times faster (times are divided by it)
    max_requests : int, optional
        Read at most this many requests
    classes : int, default 17
        17 (hot/cold × read/write × 4 sizes + untouched) or 33 (× 2 intensities)
    record_size : int, default '1M'
        Record size: bytes, or with a unit (1M)
    hot_iops : float, default 1.0
        A record is hot above this IOPS in some window
    hot_window : int, default 1
        The window for the hot test, seconds; 0 takes the mean over the whole trace
    size_edges : int, or a list of them, default ['4K,16K,64K']
        Upper edges of the request-size bins but the last (mean request size)
    progress : bool, optional
        Show a progress bar (default: on a terminal or in a notebook).

    Returns
    -------
    dict[str, Any]
        The report ``tierlab trace classes --json`` prints, as Python objects.
    """

def cache(
    trace: PathLike,
    *,
    format: str | None = None,
    sort: bool = False,
    volume: int | Sequence[int] | None = None,
    start_s: float = 0.0,
    end_s: float | None = None,
    speed: float = 1.0,
    max_requests: int | None = None,
    algorithms: str | Sequence[str] | None = None,
    sizes: str = 'auto',
    block: str | None = None,
    objects: bool = False,
    count_objects: bool = False,
    window_s: float = 60.0,
    csv: PathLike | None = None,
    html: PathLike | None = None,
    memory_limit: str = '8G',
    progress: bool | None = None,
) -> dict[str, Any]:
    """
    Miss-ratio curves of replacement algorithms at many cache sizes, in one pass.

    ``tierlab cache``: Miss-ratio curves: hit and miss ratios of LRU, FIFO, ARC, 2Q,
    WSClock, SIEVE and S3-FIFO at many cache sizes in one pass over a trace, by request and
    by byte, for fixed-size blocks or whole requests (libCacheSim's object traces included)

    Parameters
    ----------
    trace : path
        The trace file: any format `tierlab trace formats` lists (libCacheSim's
        oracleGeneral and id streams too), compressed or not
    format : str, optional
        Trace format; detected from the content when absent (`tierlab trace formats` lists
        them)
    sort : bool, optional
        Reorder requests whose timestamps run backwards (within a bounded window) instead of
        stopping with an error
    volume : int, or a list of them, optional
        Keep only requests to this volume (repeatable)
    start_s : float, default 0.0
        Skip requests before this many seconds into the trace
    end_s : float, optional
        Stop at this many seconds into the trace
    speed : float, default 1.0
        Replay this many times faster (times are divided by it)
    max_requests : int, optional
        Read at most this many requests
    algorithms : str, or a list of them, optional
        Replacement algorithms, comma separated: lru, fifo, arc, 2q, wsclock, sieve, s3fifo
        (default: all of them)
    sizes : str, default 'auto'
        Cache sizes, comma separated: bytes (65536, 64K, 16M, 2G), or numbers of objects
        with count_objects. `auto`: ten sizes from 0.1 % to 100 % of the trace's footprint,
        which a first pass over the trace measures
    block : str, optional
        Cache fixed-size blocks of this many bytes: every block a request touches is one
        object; a request hits when all its blocks do. The default (4K) for block traces
    objects : bool, optional
        Cache whole requests: each is one object named by its first sector (libCacheSim's
        object id) and as large as the request; sizes are bytes. The default for
        libCacheSim's oracleGeneral traces
    count_objects : bool, optional
        Cache whole requests each counting one object; sizes are numbers of objects
        (libCacheSim's ignore_obj_size). The default for id streams, which carry no sizes
    window_s : float, default 60.0
        WSClock's working-set window, in seconds of trace time (id streams tick one
        nanosecond per request)
    csv : path, optional
        Also write the points as CSV to FILE
    html : path, optional
        Also write a self-contained HTML page with the miss-ratio curves to FILE
    memory_limit : str, default '8G'
        Refuse a run whose estimated memory exceeds this (bytes; K/M/G/T suffixes)
    progress : bool, optional
        Show a progress bar (default: on a terminal or in a notebook).

    Returns
    -------
    dict[str, Any]
        The report ``tierlab cache --json`` prints, as Python objects.
    """

def plan(
    *,
    trace: PathLike | None = None,
    format: str | None = None,
    sort: bool = False,
    volume: int | Sequence[int] | None = None,
    start_s: float = 0.0,
    end_s: float | None = None,
    speed: float = 1.0,
    max_requests: int | None = None,
    stats: str | None = None,
    catalog: str = 'hybridstore-2009',
    without: str | Sequence[str] | None = None,
    price: str | Sequence[str] | None = None,
    classes: int = 33,
    horizon_years: float = 5.0,
    lifetime_years: float | None = None,
    usd_per_kwh: float = 0.1,
    cooling_factor: float = 2.0,
    no_recurring: bool = False,
    bandwidth: Literal['literal', 'aggregated'] = 'literal',
    wear: Literal['mean', 'peak'] = 'mean',
    max_devices: int | None = None,
    scale: float = 1.0,
    runner_ups: int = 3,
    probe_requests: int = 2000,
    probe_depth: int = 1,
    ssd_internals: bool = False,
    no_cache: bool = False,
    simulate: bool = False,
    batch_requests: int = 1000,
    target_interval: float = 0.05,
    run_requests: int = 400000,
    no_warmup: bool = False,
    seed: int = 1,
    html: PathLike | None = None,
    progress: bool | None = None,
) -> dict[str, Any]:
    """
    HybridStore's cheapest SSD/HDD mix (``trace=`` or ``stats=``).

    ``tierlab plan``: HybridStore's capacity planner (MixPlan): the cheapest mix of SSDs and
    HDDs for a workload's data classes over a horizon — device counts, each class's
    placement, purchase and recurring cost, what binds — solved as an integer program
    (HiGHS), each class's bandwidth measured on tierlab's device models

    Parameters
    ----------
    trace : path, optional
        Plan for this trace
    format : str, optional
        Trace format; detected from the content when absent (`tierlab trace formats` lists
        them)
    sort : bool, optional
        Reorder requests whose timestamps run backwards (within a bounded window) instead of
        stopping with an error
    volume : int, or a list of them, optional
        Keep only requests to this volume (repeatable)
    start_s : float, default 0.0
        Skip requests before this many seconds into the trace
    end_s : float, optional
        Stop at this many seconds into the trace
    speed : float, default 1.0
        Replay this many times faster (times are divided by it)
    max_requests : int, optional
        Read at most this many requests
    stats : str, optional
        Plan for a workload statistics file (a synthesised stream stands in for the trace);
        a file, or the id of a shipped one (`catalog/workloads`)
    catalog : str, default 'hybridstore-2009'
        Planning catalog: a shipped id (hybridstore-2009, recent) or a file
    without : str, or a list of them, optional
        Leave a device type of the catalog out (repeatable)
    price : str, or a list of them, optional
        Set a device type's price, $/GB (repeatable): `price x25m=0.48`
    classes : int, default 33
        17 or 33 data classes
    horizon_years : float, default 5.0
        (no help)
    lifetime_years : float, optional
        The SSDs must last this long (default: the horizon)
    usd_per_kwh : float, default 0.1
        (no help)
    cooling_factor : float, default 2.0
        Cooling as a multiple of the electricity: 2 counts cooling equal to it (Eq. 4.3), 1
        counts electricity alone
    no_recurring : bool, optional
        Purchase price only (no power or cooling over the horizon)
    bandwidth : one of 'literal', 'aggregated', default 'literal'
        How classes share a device type's bandwidth
    wear : one of 'mean', 'peak', default 'mean'
        What wears the flash: each class's mean write rate, or its write share of F_j
    max_devices : int, optional
        At most this many devices in all
    scale : float, default 1.0
        Multiply every class's bandwidth need (the research's 1x-8x arrival-rate scaling)
    runner_ups : int, default 3
        How many runner-up plans to list
    probe_requests : int, default 2000
        Requests per class shape when measuring a device's bandwidth
    probe_depth : int, default 1
        Requests kept outstanding when measuring a device's bandwidth (1: one request's
        service time, the research's disk model; more lets an SSD use its channels)
    ssd_internals : bool, optional
        Measure an SSD timed from its data sheet on its internals model instead (the catalog
        entry's `internals`, filled to its usable share and aged): the aged-FTL sensitivity
        run
    no_cache : bool, optional
        Measure device bandwidths anew instead of reading the cache
    simulate : bool, optional
        Check the plan by simulation: build it (and each device type alone) from tierlab's
        device models, replay the workload, and set what the planner assumed beside what
        happened
    batch_requests : int, default 1000
        Host requests per batch: the unit the warm-up, run length and intervals are judged
        in
    target_interval : float, default 0.05
        Stop a run once every key figure's 95 % interval is within this share of its mean
    run_requests : int, default 400000
        Take at most this many requests per run, warm-up included (a synthetic workload
        generates on from its seed, a trace plays pass after pass until then); a warm-up not
        over by half of them is cut there and marked
    no_warmup : bool, optional
        Measure from the first request instead of detecting the end of the warm-up
    seed : int, default 1
        Seed of the synthesised stream (`stats`) and of the simulated placement
    html : path, optional
        Also write an HTML report
    progress : bool, optional
        Show a progress bar (default: on a terminal or in a notebook).

    Returns
    -------
    dict[str, Any]
        The report ``tierlab plan --json`` prints, as Python objects.
    """

def array_simulate(
    *,
    scheme: str | None = None,
    iops: float = 140.0,
    config: PathLike | Mapping[str, Any] | None = None,
    disks: int | None = None,
    level: str | None = None,
    stripe_unit: int | None = None,
    disk: str | None = None,
    power_profile: str | None = None,
    nvram: int | None = None,
    compact: bool = False,
    wrap: bool = False,
    warmup_s: float | None = None,
    target_interval: float = 0.05,
    batch_requests: int | None = None,
    replay: Literal['open', 'closed'] | None = None,
    depth: int | None = None,
    scheduler: str | None = None,
    r_limit_ms: float | None = None,
    epoch_s: float | None = None,
    tpm_timeout_s: float | None = None,
    trace: PathLike | None = None,
    format: str | None = None,
    sort: bool = False,
    volume: int | Sequence[int] | None = None,
    start_s: float = 0.0,
    end_s: float | None = None,
    speed: float = 1.0,
    max_requests: int | None = None,
    workload: PathLike | Mapping[str, Any] | None = None,
    hours: float = 48.0,
    skew: Literal['zipf', 'hot-cold'] = 'zipf',
    seed: int = 1,
    system: PathLike | Mapping[str, Any] | None = None,
    low_power: str | None = None,
    memory_limit: str = '8G',
    progress: bool | None = None,
) -> dict[str, Any]:
    """
    One energy-saving scheme on a disk array.

    ``tierlab array simulate``: Run one energy scheme on one workload on a disk array and
    report response time, whether the response-time goal held, energy by power state, and
    speed changes and start/stops per disk per day. Default: Hibernator on 24 two-speed
    disks in RAID-5, the synthetic OLTP workload at 140 req/s for 4 hours

    Parameters
    ----------
    scheme : str, optional
        The energy scheme: raid5, tpm, raid-drpm, raid-cr, pdc-ld, maid or hibernator; a
        trailing `+` adds the performance guarantee (raid-cr+). Default: the config file's
        `[scheme] kind`, else hibernator
    iops : float, default 140.0
        Mean arrival rate of the synthetic OLTP workload, requests/s
    config : path or dict (the file's TOML), optional
        A TOML file with an `[array]` table (level, disks, stripe_unit_bytes, disk,
        power_profile, nvram_bytes, nvram_max_age_s, warm_nvram, max_destages, compact,
        wrap, closed_depth, warmup_s, scheduler) and a `[scheme]` table (kind, guarantee,
        r_limit_ms, epoch_s, tpm_timeout_s, drpm, pdc, maid, hibernator), both optional.
        Flags given override it
    disks : int, optional
        Disks in the array (default 24)
    level : str, optional
        RAID level: raid0, raid10 or raid5 (default raid5)
    stripe_unit : int, optional
        Stripe unit: bytes, or with a unit (64K, 1M) (default 64K)
    disk : str, optional
        Catalog drive every disk is (default: the Hibernator paper's two-speed 36Z15;
        `tierlab catalog list`)
    power_profile : str, optional
        The drive's power profile (default: its first)
    nvram : int, optional
        NVRAM write cache in front of the disks: bytes, or with a unit (2G); 0 for none
        (default 2G)
    compact : bool, optional
        Pack the blocks a trace touches densely instead of laying its volumes end to end
    wrap : bool, optional
        Fold requests beyond the array's end back into it
    warmup_s : float, optional
        Measure from this many seconds of virtual time on, for the rest of the run (instead
        of the measurement layer's detected warm-up; 0 measures the whole run)
    target_interval : float, default 0.05
        Without warmup_s, a run goes on after its warm-up until the 95 % intervals of its
        mean response time and power are within this share of their values (or hours)
    batch_requests : int, optional
        Host requests per batch of the measurement layer (default: a tenth of an epoch of
        the load's arrivals, at least 1,000)
    replay : one of 'open', 'closed', optional
        Open-loop replay follows arrival times (the default); closed-loop keeps depth
        requests outstanding
    depth : int, optional
        Requests outstanding in closed-loop replay (implies replay closed; default 1)
    scheduler : str, optional
        Disk queue scheduler: fcfs, sstf, clook, clook-lba, sptf or clook-lba+sptf (default
        fcfs)
    r_limit_ms : float, optional
        The response-time goal R_limit: the array's mean response time, ms (default 10)
    epoch_s : float, optional
        The epoch of CR and Hibernator (how often they plan disk speeds), s (default 3600)
    tpm_timeout_s : float, optional
        TPM's idle timeout before a spin-down, s (default: the disk's break-even time)
    trace : path, optional
        Replay this trace file (any format `tierlab trace formats` lists) instead of the
        synthetic OLTP workload
    format : str, optional
        Trace format; detected from the content when absent (`tierlab trace formats` lists
        them)
    sort : bool, optional
        Reorder requests whose timestamps run backwards (within a bounded window) instead of
        stopping with an error
    volume : int, or a list of them, optional
        Keep only requests to this volume (repeatable)
    start_s : float, default 0.0
        Skip requests before this many seconds into the trace
    end_s : float, optional
        Stop at this many seconds into the trace
    speed : float, default 1.0
        Replay this many times faster (times are divided by it)
    max_requests : int, optional
        Read at most this many requests
    workload : path or dict (the file's TOML), optional
        A synthetic workload TOML file (see `tierlab workload show`) instead of the OLTP
        workload
    hours : float, default 48.0
        Hours of the synthetic OLTP workload: with the measurement layer, the most a run may
        take, warm-up included (a warm-up not over by half of it is cut there and marked);
        with warmup_s, the run's length
    skew : one of 'zipf', 'hot-cold', default 'zipf'
        How the OLTP workload's accesses are skewed: zipf (θ = 1.08 over 8 KiB pages, kept
        in rank order in scattered 16 MiB regions) or hot-cold (90 % of accesses to 10 % of
        the space, in the same regions)
    seed : int, default 1
        Seed of the synthetic OLTP workload
    system : path or dict (the file's TOML), optional
        A system description (TOML: a controller and the enclosures that hold the disks; see
        `tierlab system show` and examples/system-hibernator.toml): the report then splits
        energy into controller, enclosures and disks, and states savings for the disks alone
        and for the whole system
    low_power : str, optional
        What a scheme's spin-down does in the system: spin-down (the drive's standby) or
        power-down (the enclosure cuts the slot's power). Default: the system file's
    memory_limit : str, default '8G'
        Refuse a run whose estimated memory exceeds this (bytes; K/M/G/T suffixes)
    progress : bool, optional
        Show a progress bar (default: on a terminal or in a notebook).

    Returns
    -------
    dict[str, Any]
        The report ``tierlab array simulate --json`` prints, as Python objects.
    """

def array_compare(
    *,
    schemes: str | Sequence[str] = ['raid5,tpm,raid-drpm,pdc-ld,maid,raid-drpm+,pdc-ld+,raid-cr+,hibernator+'],
    loads: float | Sequence[float] | None = None,
    speeds: float | Sequence[float] | None = None,
    r_limits: float | Sequence[float] | None = None,
    csv: PathLike | None = None,
    html: PathLike | None = None,
    config: PathLike | Mapping[str, Any] | None = None,
    disks: int | None = None,
    level: str | None = None,
    stripe_unit: int | None = None,
    disk: str | None = None,
    power_profile: str | None = None,
    nvram: int | None = None,
    compact: bool = False,
    wrap: bool = False,
    warmup_s: float | None = None,
    target_interval: float = 0.05,
    batch_requests: int | None = None,
    replay: Literal['open', 'closed'] | None = None,
    depth: int | None = None,
    scheduler: str | None = None,
    r_limit_ms: float | None = None,
    epoch_s: float | None = None,
    tpm_timeout_s: float | None = None,
    trace: PathLike | None = None,
    format: str | None = None,
    sort: bool = False,
    volume: int | Sequence[int] | None = None,
    start_s: float = 0.0,
    end_s: float | None = None,
    speed: float = 1.0,
    max_requests: int | None = None,
    workload: PathLike | Mapping[str, Any] | None = None,
    hours: float = 48.0,
    skew: Literal['zipf', 'hot-cold'] = 'zipf',
    seed: int = 1,
    system: PathLike | Mapping[str, Any] | None = None,
    low_power: str | None = None,
    memory_limit: str = '8G',
    progress: bool | None = None,
) -> Any:
    """
    Schemes × loads, savings against RAID-5.

    ``tierlab array compare``: Run several schemes at several loads (or R_limits) on the
    same array and report each one's energy saving against RAID-5, as a table, JSON, CSV or
    a self-contained HTML report with the Hibernator paper's charts

    Parameters
    ----------
    schemes : str, or a list of them, default ['raid5,tpm,raid-drpm,pdc-ld,maid,raid-drpm+,pdc-ld+,raid-cr+,hibernator+']
        Schemes to run, comma-separated (RAID-5 always runs first at each load: it is the
        reference for savings)
    loads : float, or a list of them, optional
        Loads of the synthetic OLTP workload, requests/s, each run for hours [default:
        7,14,140,700,1400]
    speeds : float, or a list of them, optional
        With trace: replay it at each of these speeds (e.g. 0.5,1,2), one load each
    r_limits : float, or a list of them, optional
        Sweep the response-time goal instead of the load: run every scheme at each of these
        R_limits (ms) at the first load (the saving-against-R_limit study)
    csv : path, optional
        Also write the table as CSV here
    html : path, optional
        Also write a self-contained HTML report with charts here
    config : path or dict (the file's TOML), optional
        A TOML file with an `[array]` table (level, disks, stripe_unit_bytes, disk,
        power_profile, nvram_bytes, nvram_max_age_s, warm_nvram, max_destages, compact,
        wrap, closed_depth, warmup_s, scheduler) and a `[scheme]` table (kind, guarantee,
        r_limit_ms, epoch_s, tpm_timeout_s, drpm, pdc, maid, hibernator), both optional.
        Flags given override it
    disks : int, optional
        Disks in the array (default 24)
    level : str, optional
        RAID level: raid0, raid10 or raid5 (default raid5)
    stripe_unit : int, optional
        Stripe unit: bytes, or with a unit (64K, 1M) (default 64K)
    disk : str, optional
        Catalog drive every disk is (default: the Hibernator paper's two-speed 36Z15;
        `tierlab catalog list`)
    power_profile : str, optional
        The drive's power profile (default: its first)
    nvram : int, optional
        NVRAM write cache in front of the disks: bytes, or with a unit (2G); 0 for none
        (default 2G)
    compact : bool, optional
        Pack the blocks a trace touches densely instead of laying its volumes end to end
    wrap : bool, optional
        Fold requests beyond the array's end back into it
    warmup_s : float, optional
        Measure from this many seconds of virtual time on, for the rest of the run (instead
        of the measurement layer's detected warm-up; 0 measures the whole run)
    target_interval : float, default 0.05
        Without warmup_s, a run goes on after its warm-up until the 95 % intervals of its
        mean response time and power are within this share of their values (or hours)
    batch_requests : int, optional
        Host requests per batch of the measurement layer (default: a tenth of an epoch of
        the load's arrivals, at least 1,000)
    replay : one of 'open', 'closed', optional
        Open-loop replay follows arrival times (the default); closed-loop keeps depth
        requests outstanding
    depth : int, optional
        Requests outstanding in closed-loop replay (implies replay closed; default 1)
    scheduler : str, optional
        Disk queue scheduler: fcfs, sstf, clook, clook-lba, sptf or clook-lba+sptf (default
        fcfs)
    r_limit_ms : float, optional
        The response-time goal R_limit: the array's mean response time, ms (default 10)
    epoch_s : float, optional
        The epoch of CR and Hibernator (how often they plan disk speeds), s (default 3600)
    tpm_timeout_s : float, optional
        TPM's idle timeout before a spin-down, s (default: the disk's break-even time)
    trace : path, optional
        Replay this trace file (any format `tierlab trace formats` lists) instead of the
        synthetic OLTP workload
    format : str, optional
        Trace format; detected from the content when absent (`tierlab trace formats` lists
        them)
    sort : bool, optional
        Reorder requests whose timestamps run backwards (within a bounded window) instead of
        stopping with an error
    volume : int, or a list of them, optional
        Keep only requests to this volume (repeatable)
    start_s : float, default 0.0
        Skip requests before this many seconds into the trace
    end_s : float, optional
        Stop at this many seconds into the trace
    speed : float, default 1.0
        Replay this many times faster (times are divided by it)
    max_requests : int, optional
        Read at most this many requests
    workload : path or dict (the file's TOML), optional
        A synthetic workload TOML file (see `tierlab workload show`) instead of the OLTP
        workload
    hours : float, default 48.0
        Hours of the synthetic OLTP workload: with the measurement layer, the most a run may
        take, warm-up included (a warm-up not over by half of it is cut there and marked);
        with warmup_s, the run's length
    skew : one of 'zipf', 'hot-cold', default 'zipf'
        How the OLTP workload's accesses are skewed: zipf (θ = 1.08 over 8 KiB pages, kept
        in rank order in scattered 16 MiB regions) or hot-cold (90 % of accesses to 10 % of
        the space, in the same regions)
    seed : int, default 1
        Seed of the synthetic OLTP workload
    system : path or dict (the file's TOML), optional
        A system description (TOML: a controller and the enclosures that hold the disks; see
        `tierlab system show` and examples/system-hibernator.toml): the report then splits
        energy into controller, enclosures and disks, and states savings for the disks alone
        and for the whole system
    low_power : str, optional
        What a scheme's spin-down does in the system: spin-down (the drive's standby) or
        power-down (the enclosure cuts the slot's power). Default: the system file's
    memory_limit : str, default '8G'
        Refuse a run whose estimated memory exceeds this (bytes; K/M/G/T suffixes)
    progress : bool, optional
        Show a progress bar (default: on a terminal or in a notebook).

    Returns
    -------
    Any
        The report ``tierlab array compare --json`` prints, as Python objects.
    """

def replicate_run(
    *,
    warehouses: int | None = None,
    window: int | None = None,
    rto_s: float | None = None,
    standby: str | None = None,
    disks: bool = False,
    config: PathLike | Mapping[str, Any] | None = None,
    transactions: int | None = None,
    seed: int | None = None,
    buffer_pool: int | None = None,
    primary_depth: int | None = None,
    trace: PathLike | None = None,
    compact: bool = False,
    log: PathLike | None = None,
    hours: float | None = None,
    duration_s: float | None = None,
    warmup_s: float | None = None,
    no_measure: bool = False,
    rto_mode: str | None = None,
    trigger: str | None = None,
    disk: str | None = None,
    power_profile: str | None = None,
    data_disks: int | None = None,
    log_disks: int | None = None,
    apply_cache: int | None = None,
    redo: str | None = None,
    latency_s: float | None = None,
    bandwidth: int | None = None,
    async_lag: int | None = None,
    system: PathLike | Mapping[str, Any] | None = None,
    low_power: str | None = None,
    schemes: str | Sequence[str] = ['proposed,conventional-pooled'],
    csv: bool = False,
    html: PathLike | None = None,
    progress: bool | None = None,
) -> dict[str, Any]:
    """
    A primary and a power-aware DR secondary.

    ``tierlab replicate run``: Replay a primary at saturation and its secondary under
    conventional replication and the chosen schemes; report each scheme's power saving,
    apply speed-up r, batch interval, start/stop cycles, worst recovery time and per-disk
    energy. Default: the paper's set-up (160 TPC-C warehouses, 36Z15 disks, RTO 100 s, 512
    MiB window, 4 h). Each scheme runs until its power is within 5 % over whole cycles, or
    the duration ends it; `run` simulates three by default: conventional, proposed and
    conventional-pooled (a release build: about 3 CPU-minutes, `--hours 2` about 2)

    Parameters
    ----------
    warehouses : int, optional
        TPC-C warehouses (default 160)
    window : int, optional
        Log read, compacted and applied per window: bytes, or with a unit (512M) (default
        512M)
    rto_s : float, optional
        The recovery time objective, s (default 100)
    standby : str, optional
        The standby level the data volume sleeps in (default: the profile's deepest)
    disks : bool, optional
        Show the per-disk table of every scheme, conventional included
    config : path or dict (the file's TOML), optional
        A TOML file with the replication settings at top level (disk, power_profile,
        standby, data_disks, log_disks, level, stripe_unit_bytes, primary_depth, duration_s,
        warmup_s, measure, rto_s, rto_mode, trigger, window_bytes, merge_max_bytes,
        apply_cache_bytes, apply_depth, ewma_weight, data_disk_share), a `[link]` table and
        a `[source]` table with `kind = "tpcc" | "forward" | "log-file"` (see
        examples/replicate.toml). Flags given override it
    transactions : int, optional
        Transactions the TPC-C generator yields (default: as many as the duration takes)
    seed : int, optional
        Seed of the TPC-C generator (default 0)
    buffer_pool : int, optional
        The TPC-C primary's database buffer: bytes, or with a unit (default 512M, the
        paper's). A buffer smaller than the database makes the primary disk-bound
    primary_depth : int, optional
        Requests the primary keeps outstanding (it runs at saturation) (default 128)
    trace : path, optional
        Forward the writes of this block trace (any format `tierlab trace formats` lists)
        instead of running the TPC-C generator
    compact : bool, optional
        With trace: pack the blocks the trace touches densely instead of laying its volumes
        end to end
    log : path, optional
        Replay this update log file (written by `tierlab replicate log`)
    hours : float, optional
        Primary time simulated, hours (default 4)
    duration_s : float, optional
        Primary time simulated, s
    warmup_s : float, optional
        The secondary's least warm-up, s (default 600): measured over whole replica cycles,
        the window starts at the first wake-up after it where the last two cycles agree
        (`docs/measurement.md`); with no_measure, from here
    no_measure : bool, optional
        Measure from warmup_s to the end of the run instead of over whole cycles from a
        detected steady state until the power is within 5 %
    rto_mode : str, optional
        How the RTO bounds a batch: paper (recovery within the RTO while the disks spin, the
        paper's formula) or strict (at every instant, spin-up included) (default paper)
    trigger : str, optional
        When a deferring secondary wakes its data volume: backlog (when the backlog reaches
        what the RTO allows) or schedule (the batch formula's fixed cycle) (default backlog)
    disk : str, optional
        Catalog drive of both sites (default ibm-ultrastar-36z15; `tierlab catalog list`)
    power_profile : str, optional
        The drive's power profile (default replication, the paper's figures)
    data_disks : int, optional
        Disks of the secondary's data volume (and of the primary's) (default 16)
    log_disks : int, optional
        Disks of the log volumes (default 1)
    apply_cache : int, optional
        The secondary's apply-side page cache: bytes, or with a unit (512M) (default 512M)
    redo : str, optional
        How a row record's change reaches its page, for every scheme: read-modify-write (the
        page is read unless cached: what redo of a row log needs) or blind (pages written
        without reading: what a log of whole page images would allow) (default read-modify-
        write)
    latency_s : float, optional
        One-way latency of the link, s (default 0)
    bandwidth : int, optional
        Bandwidth of the link, bytes per second, or with a unit (100M) (default: not a
        limit)
    async_lag : int, optional
        Ship asynchronously: a commit waits for the secondary only while more than this many
        shipped bytes are not yet durable there (bytes, or with a unit: 16M). Default:
        synchronous shipping
    system : path or dict (the file's TOML), optional
        The secondary site's system description (TOML: a controller and the enclosures
        holding its data and log disks, data first; see `tierlab system show`): reports then
        give the site's whole power and its saving beside the disks'
    low_power : str, optional
        What the data volume's sleep does in the system: spin-down (the drive's standby) or
        power-down (the enclosure cuts the slots' power). Default: the system file's
    schemes : str, or a list of them, default ['proposed,conventional-pooled']
        Schemes to run besides conventional replication, comma-separated: proposed,
        conventional-pooled, deferred-only, compaction-only, idle-timeout (conventional,
        which reflects each update at once, is always run: it is the reference for savings;
        conventional-pooled applies through a write-back cache and, when listed, each
        scheme's saving against it is reported beside)
    csv : bool, optional
        Print the result as CSV, one line per scheme (per point with `sweep`)
    html : path, optional
        Also write a self-contained HTML report with charts here
    progress : bool, optional
        Show a progress bar (default: on a terminal or in a notebook).

    Returns
    -------
    dict[str, Any]
        The report ``tierlab replicate run --json`` prints, as Python objects.
    """

def replicate_plan(
    *,
    r: float | None = None,
    r_gen: float | None = None,
    r_apl: float | None = None,
    rto_s: float | None = None,
    mode: str | None = None,
    disk: str | None = None,
    power_profile: str | None = None,
    standby: str | None = None,
    log_volume: int | None = None,
    window: int | None = None,
    u: float = 1.0,
    grid: bool = False,
    progress: bool | None = None,
) -> dict[str, Any]:
    """
    The batch planner's window, cycles per day, worst recovery.

    ``tierlab replicate plan``: The batch planner without simulation: the cycle length
    T_wnd, apply time, cycles per day, worst recovery and the analytic power saving for a
    speed-up r (or R_gen and R_apl) and an RTO on a disk's standby level; `--grid` prints
    the paper's grid

    Parameters
    ----------
    r : float, optional
        The apply speed-up r = R_apl / R_gen
    r_gen : float, optional
        The log generation rate R_gen: bytes/s, or with a unit (1M, 4.5M)
    r_apl : float, optional
        The compacted apply rate R_apl: bytes/s, or with a unit (20M)
    rto_s : float, optional
        The recovery time objective, s (default 100)
    mode : str, optional
        paper (recovery within the RTO while the disks spin) or strict (at every instant)
        (default paper)
    disk : str, optional
        Catalog drive of the data volume (default ibm-ultrastar-36z15)
    power_profile : str, optional
        The drive's power profile (default replication)
    standby : str, optional
        The standby level (default: the profile's deepest; `grid`: every level)
    log_volume : int, optional
        Check that one batch of log fits a log volume of this size (bytes, or with a unit)
    window : int, optional
        Check that a compaction window of this size fits the log volume
    u : float, default 1.0
        The conventional secondary's data-disk utilisation, for the analytic power model
    grid : bool, optional
        Print the paper's grid instead: r ∈ {4.030, 9.5835, 20.4486, 49.3} × RTO ∈ {30, 100,
        300, 1000} s × the profile's standby levels
    progress : bool, optional
        Show a progress bar (default: on a terminal or in a notebook).

    Returns
    -------
    dict[str, Any]
        The report ``tierlab replicate plan --json`` prints, as Python objects.
    """
