"""A platform named by what it is: CPU model, cores, hypervisor and the
date of the run, from its folder's meta.json (the platform report of
`tc-perf --platform` and the run's date), for the tables' headers and the
figures' keys; the hash id stays beside it in the platforms' table."""
import re

# CPUID's hypervisor vendor signature -> its name ("KVMKVMKVM", "bhyve bhyve ")
HYPERVISORS = [("KVMKVMKVM", "KVM"), ("bhyve", "bhyve"), ("Microsoft Hv", "Hyper-V"), ("VMwareVMware", "VMware"),
               ("XenVMMXenVMM", "Xen"), ("TCGTCGTCGTCG", "QEMU TCG"), ("ACRNACRNACRN", "ACRN"),
               ("lrpepyh", "Parallels"), ("VBoxVBoxVBox", "VirtualBox"), ("QNXQVMBSQG", "QNX")]
# vendor marks and filler a model name carries that tell nothing apart
NOISE = re.compile(r"\((R|TM|tm|r)\)|\bCPU\b|\bProcessor\b|\b\d+-Core\b|@.*$")


def hypervisor_name(cpu):
    """the hypervisor a report names, 'bare metal' where the CPU is known and
    none is reported, None where nothing is known"""
    sig = (cpu or {}).get("hypervisor")
    if not sig:
        return "bare metal" if (cpu or {}).get("vendor") else None
    for mark, name in HYPERVISORS:
        if mark in sig:
            return name
    words = sig.split()
    return words[0] if words else sig.strip() or None


def cpu_name(cpu):
    """the model name without vendor marks, and family/model where reported
    ('Intel Xeon 6/207'): two guests of one model name are told apart"""
    cpu = cpu or {}
    name = " ".join(NOISE.sub(" ", str(cpu.get("model_name") or "")).split())
    if not name:
        return None
    if cpu.get("family") is not None and cpu.get("model") is not None:
        name += " %s/%s" % (cpu["family"], cpu["model"])
    return name


def run_date(meta):
    """the run's day (YYYY-MM-DD) from meta.json's date; the text as it is
    where it is no ISO date"""
    d = str(meta.get("date") or "")
    m = re.match(r"\d{4}-\d{2}-\d{2}", d)
    return m.group(0) if m else (d or None)


def label(meta, fallback):
    """'Intel Xeon 6/207, 2 cores, KVM, 2026-12-02' (between two hosts: 'host
    pair (mpirun): ...', the client's report); fallback (the id) where the
    report says nothing"""
    pl = meta.get("platform") if isinstance(meta.get("platform"), dict) else {}
    cpu = pl.get("cpu") or {}
    cores = (pl.get("topology") or {}).get("cores")
    parts = [cpu_name(cpu), "%s cores" % cores if cores else None, hypervisor_name(cpu)]
    if not any(parts):
        parts = [fallback]
    parts.append(run_date(meta))
    text = ", ".join(p for p in parts if p)
    pair = meta.get("pair") or {}
    if pair:
        text = "host pair (%s): %s" % (pair.get("launcher", "?"), text)
    return text


def unique(labels, ids):
    """labels made unique: one that two platforms share gets its id"""
    return ["%s (%s)" % (lab, i) if labels.count(lab) > 1 else lab for lab, i in zip(labels, ids)]
