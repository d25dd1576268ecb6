// The halo exchange of roofcast-stencil: before each block of kb sweeps every rank sends the outer W = kb r
// layers of its owned box to each of its up to 26 neighbours (faces, edges, corners) and receives theirs
// into its ghost layers, nonblocking, so that the inner region can be computed while the messages travel.
// Contract: start() packs and posts every message; progress() lets MPI move data (called between pieces of
// the inner region); finish() waits and unpacks. Only the ghost layers of `field` are written, and only by
// finish(); start() only reads the owned box.
#pragma once

#include "analysis/stencil/geometry.hpp"
#include "stencil/kernels.hpp"

#include <mpi.h>
#include <vector>

namespace roofcast::stencil {

template <typename Real> MPI_Datatype mpi_type() {
    if constexpr (sizeof(Real) == 8)
        return MPI_DOUBLE;
    else
        return MPI_FLOAT;
}

// Copies box b of f into buf (z, y, x order), or back when `unpack`.
template <typename Real> void copy_box(const Box& b, Field<Real>& f, std::vector<Real>& buf, bool unpack) {
    buf.resize(static_cast<std::size_t>(b.cells()));
    const long nx = b.hi[2] - b.lo[2], ny = b.hi[1] - b.lo[1];
    for (long z = b.lo[0]; z < b.hi[0]; ++z)
        for (long y = b.lo[1]; y < b.hi[1]; ++y) {
            Real* row = f.data.data() + f.at(z, y, b.lo[2]);
            Real* packed = buf.data() + ((z - b.lo[0]) * ny + (y - b.lo[1])) * nx;
            for (long x = 0; x < nx; ++x) {
                if (unpack)
                    row[x] = packed[x];
                else
                    packed[x] = row[x];
            }
        }
}

template <typename Real> class HaloExchange {
public:
    // neighbour[dir index] is the rank at that offset or MPI_PROC_NULL; dir index = 9 (dz+1) + 3 (dy+1) +
    // dx+1.
    HaloExchange(MPI_Comm comm, const model::stencil::RankGeometry& g, std::vector<int> neighbour)
        : m_comm(comm), m_geometry(g), m_neighbour(std::move(neighbour)) {}

    void start(Field<Real>& field, long width) {
        m_requests.clear();
        m_links.clear();
        for (const auto& msg : model::stencil::halo_messages(m_geometry, width)) {
            Link l;
            l.dir = msg.dir;
            for (int d = 0; d < 3; ++d) {
                const long lo = m_geometry.owned.lo[d], hi = m_geometry.owned.hi[d];
                if (msg.dir[d] < 0) {
                    l.send.lo[d] = lo, l.send.hi[d] = lo + width;
                    l.recv.lo[d] = lo - width, l.recv.hi[d] = lo;
                } else if (msg.dir[d] > 0) {
                    l.send.lo[d] = hi - width, l.send.hi[d] = hi;
                    l.recv.lo[d] = hi, l.recv.hi[d] = hi + width;
                } else {
                    l.send.lo[d] = l.recv.lo[d] = lo;
                    l.send.hi[d] = l.recv.hi[d] = hi;
                }
            }
            m_links.push_back(std::move(l));
        }
        for (auto& l : m_links) {
            copy_box(l.send, field, l.send_buf, false);
            l.recv_buf.resize(static_cast<std::size_t>(l.recv.cells()));
        }
        for (auto& l : m_links) {
            MPI_Request r;
            MPI_Irecv(l.recv_buf.data(), static_cast<int>(l.recv_buf.size()), mpi_type<Real>(),
                      m_neighbour[index(l.dir)], index(negate(l.dir)), m_comm, &r);
            m_requests.push_back(r);
        }
        for (auto& l : m_links) {
            MPI_Request r;
            MPI_Isend(l.send_buf.data(), static_cast<int>(l.send_buf.size()), mpi_type<Real>(),
                      m_neighbour[index(l.dir)], index(l.dir), m_comm, &r);
            m_requests.push_back(r);
        }
        m_done = m_requests.empty();
    }

    void progress() {
        if (m_done)
            return;
        int flag = 0;
        MPI_Testall(static_cast<int>(m_requests.size()), m_requests.data(), &flag, MPI_STATUSES_IGNORE);
        m_done = flag != 0;
    }

    void wait() {
        if (!m_requests.empty())
            MPI_Waitall(static_cast<int>(m_requests.size()), m_requests.data(), MPI_STATUSES_IGNORE);
        m_done = true;
    }

    void unpack(Field<Real>& field) {
        for (auto& l : m_links)
            copy_box(l.recv, field, l.recv_buf, true);
    }

    static int index(const Index3& d) { return 9 * (d[0] + 1) + 3 * (d[1] + 1) + (d[2] + 1); }
    static Index3 negate(const Index3& d) { return {-d[0], -d[1], -d[2]}; }

private:
    struct Link {
        Index3 dir{};
        Box send, recv;
        std::vector<Real> send_buf, recv_buf;
    };
    MPI_Comm m_comm;
    model::stencil::RankGeometry m_geometry;
    std::vector<int> m_neighbour;
    std::vector<Link> m_links;
    std::vector<MPI_Request> m_requests;
    bool m_done = true;
};

} // namespace roofcast::stencil
