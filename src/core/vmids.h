/* vmids.h - what qemu-img draws at random in a VMDK or VHDX, drawn from the seed instead, so that the same options give the same bytes */
#ifndef IMPRINT_VMIDS_H
#define IMPRINT_VMIDS_H

#include <stdint.h>

/*
 * A monolithic sparse VMDK (fd) as qemu-img writes it: its descriptor's
 * content ID ("CID=1a2b3c"), the only thing that differs between two
 * conversions of the same disk, becomes eight hex digits drawn from seed.
 * Returns 0 or a negative errno (-EPROTO: not the layout qemu-img writes).
 */
int vmids_vmdk(int fd, uint64_t seed);

/*
 * A VHDX (fd) as qemu-img writes it: the two headers' sequence numbers
 * (their order kept), file and data write GUIDs, the inactive log's GUID
 * and the virtual disk ID become values drawn from seed; the CRC-32C
 * checksums of the headers and log entries are recomputed.  Returns 0 or
 * a negative errno (-EPROTO: not the layout qemu-img writes, or a log to
 * replay).
 */
int vmids_vhdx(int fd, uint64_t seed);

#endif
