// NCCL/Gloo network presets for a job's `fabric` field (design §5). pai-compile turns them
// into NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME, NCCL_IB_HCA and, per type, NCCL_IB_TC,
// NCCL_IB_GID_INDEX, NCCL_CROSS_NIC=0 (RoCE) or NCCL_IB_DISABLE=1 (Ethernet).
{
  // RoCE v2: GID index 3 and traffic class 106 are the usual lossless-queue settings.
  roce(interface, hcas, gidIndex=3, trafficClass=106):: {
    type: 'roce',
    interface: interface,
    hcas: hcas,
    gidIndex: gidIndex,
    trafficClass: trafficClass,
  },

  // InfiniBand: HCAs only; no GID index or traffic class.
  ib(interface, hcas):: {
    type: 'ib',
    interface: interface,
    hcas: hcas,
  },

  // Plain TCP: NCCL's IB transport is disabled.
  ethernet(interface):: {
    type: 'ethernet',
    interface: interface,
  },

  // The NCCL variables a preset sets, for forwarding them explicitly (mpirun -x NAME).
  ncclVariables(fabric)::
    if fabric == null then []
    else ['NCCL_SOCKET_IFNAME']
         + (if fabric.type == 'roce' then ['NCCL_IB_HCA', 'NCCL_IB_GID_INDEX', 'NCCL_IB_TC', 'NCCL_CROSS_NIC']
            else if fabric.type == 'ib' then ['NCCL_IB_HCA']
            else ['NCCL_IB_DISABLE']),
}
