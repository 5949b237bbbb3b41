package org.verbs4j.softiwarp;

import static org.verbs4j.api.QpAttrMask.ACCESS_FLAGS;
import static org.verbs4j.api.QpAttrMask.CUR_STATE;
import static org.verbs4j.api.QpAttrMask.DEST_QPN;
import static org.verbs4j.api.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static org.verbs4j.api.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static org.verbs4j.api.QpAttrMask.MAX_QP_RD_ATOMIC;
import static org.verbs4j.api.QpAttrMask.MIN_RNR_TIMER;
import static org.verbs4j.api.QpAttrMask.PATH_MTU;
import static org.verbs4j.api.QpAttrMask.PKEY_INDEX;
import static org.verbs4j.api.QpAttrMask.PORT;
import static org.verbs4j.api.QpAttrMask.RETRY_CNT;
import static org.verbs4j.api.QpAttrMask.RNR_RETRY;
import static org.verbs4j.api.QpAttrMask.RQ_PSN;
import static org.verbs4j.api.QpAttrMask.SQ_PSN;
import static org.verbs4j.api.QpAttrMask.STATE;
import static org.verbs4j.api.QpAttrMask.TIMEOUT;

import org.verbs4j.api.Access;
import org.verbs4j.api.AsyncEvent;
import org.verbs4j.api.AsyncEventType;
import org.verbs4j.api.Errno;
import org.verbs4j.api.Mtu;
import org.verbs4j.api.QpAttributes;
import org.verbs4j.api.QpState;
import org.verbs4j.api.VerbsException;
import org.verbs4j.api.internal.QueryResults;

/**
 * A software QP's state and attributes: {@code ibv_modify_qp} (checked by {@link QpTransitions}, then applied,
 * with the effects of the new state on the queues) and {@code ibv_query_qp}. Modifies are serialised; the
 * state is a volatile read for the posts.
 */
final class QpAttributesState {
    private static final int ACCESS_BITS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ
            | Access.REMOTE_ATOMIC;

    private final SoftQueuePair qp;
    private volatile QpState state = QpState.RESET;
    private int accessFlags;
    private int port = 1;
    private int pkeyIndex;
    private int ord;
    private int ird;
    private Mtu pathMtu = Mtu.MTU_1024;
    private int destQpNum;
    private int rqPsn;
    private int sqPsn;
    private int minRnrTimer;
    private int timeout;
    private int retryCount;
    private int rnrRetry;

    QpAttributesState(SoftQueuePair qp) {
        this.qp = qp;
    }

    QpState state() {
        return state;
    }

    synchronized void modify(QpAttributes a) {
        int mask = a.mask();
        QpState current = state;
        QpState next = (mask & STATE) != 0 ? a.state() : current;
        QpTransitions.check(qp, current, next, mask, (mask & CUR_STATE) != 0 ? a.currentState() : current);
        if ((mask & ACCESS_FLAGS) != 0 && (a.accessFlags() & ~ACCESS_BITS) != 0) {
            throw invalid("access flags " + Access.toString(a.accessFlags()) + ": a QP takes local write and the "
                    + "remote rights only");
        }
        if ((mask & PORT) != 0 && a.port() != 1) {
            throw invalid("port " + a.port() + ": the device has port 1 only");
        }
        if ((mask & PKEY_INDEX) != 0 && a.pkeyIndex() != 0) {
            throw invalid("P_Key index " + a.pkeyIndex() + ": an iWARP device has no P_Key table");
        }
        if ((mask & MAX_QP_RD_ATOMIC) != 0 && (a.maxRdAtomic() < 0 || a.maxRdAtomic() > SiwAttributes.MAX_ORD)) {
            throw invalid("max_rd_atomic (ORD) " + a.maxRdAtomic() + ": 0.." + SiwAttributes.MAX_ORD);
        }
        if ((mask & MAX_DEST_RD_ATOMIC) != 0
                && (a.maxDestRdAtomic() < 0 || a.maxDestRdAtomic() > SiwAttributes.MAX_IRD)) {
            throw invalid("max_dest_rd_atomic (IRD) " + a.maxDestRdAtomic() + ": 0.." + SiwAttributes.MAX_IRD);
        }
        apply(a, mask);
        enter(current, next, (mask & EN_SQD_ASYNC_NOTIFY) != 0);
    }

    private VerbsException invalid(String why) {
        return new VerbsException("ibv_modify_qp", Errno.EINVAL, qp + ": " + why);
    }

    private void apply(QpAttributes a, int mask) {
        if ((mask & ACCESS_FLAGS) != 0) {
            accessFlags = a.accessFlags();
        }
        if ((mask & PORT) != 0) {
            port = a.port();
        }
        if ((mask & PKEY_INDEX) != 0) {
            pkeyIndex = a.pkeyIndex();
        }
        if ((mask & MAX_QP_RD_ATOMIC) != 0) {
            ord = a.maxRdAtomic();
        }
        if ((mask & MAX_DEST_RD_ATOMIC) != 0) {
            ird = a.maxDestRdAtomic();
        }
        // IB's path attributes: kept for a query, no effect on an iWARP QP
        if ((mask & PATH_MTU) != 0) {
            pathMtu = a.pathMtu();
        }
        if ((mask & DEST_QPN) != 0) {
            destQpNum = a.destQpNum();
        }
        if ((mask & RQ_PSN) != 0) {
            rqPsn = a.rqPsn();
        }
        if ((mask & SQ_PSN) != 0) {
            sqPsn = a.sqPsn();
        }
        if ((mask & MIN_RNR_TIMER) != 0) {
            minRnrTimer = a.minRnrTimer();
        }
        if ((mask & TIMEOUT) != 0) {
            timeout = a.timeout();
        }
        if ((mask & RETRY_CNT) != 0) {
            retryCount = a.retryCount();
        }
        if ((mask & RNR_RETRY) != 0) {
            rnrRetry = a.rnrRetry();
        }
    }

    /** The effects of entering {@code next}: RESET forgets the queues, ERR flushes them, SQD drains. */
    private void enter(QpState current, QpState next, boolean notifyDrained) {
        state = next;
        if (next == QpState.RESET && current != QpState.RESET) {
            qp.resetConnection();
            qp.clearQueues();
            accessFlags = 0;
            ord = 0;
            ird = 0;
        } else if (next == QpState.ERR) {
            qp.flushSend();
            qp.flushReceive();
            qp.enteredError();
        } else if (next == QpState.SQD && current != QpState.SQD && notifyDrained) {
            // nothing is in flight before the data path takes requests: the drain ends at once
            qp.softContext().raise(new AsyncEvent(AsyncEventType.SQ_DRAINED, qp, 0));
        }
    }

    /**
     * Moves the QP to RTS when the connection manager binds a connection (from INIT or RTR, checked by the QP); a
     * query then reports the ORD and IRD MPA negotiated.
     */
    synchronized void connected(int negotiatedOrd, int negotiatedIrd) {
        ord = negotiatedOrd;
        ird = negotiatedIrd;
        state = QpState.RTS;
    }

    /** Moves the QP to ERR from inside the device (a broken connection, a Terminate) and flushes its queues. */
    synchronized void fail() {
        enter(state, QpState.ERR, false);
    }

    synchronized QpAttributes query(int mask) {
        QpAttributes a = new QpAttributes()
                .state(state).currentState(state).accessFlags(accessFlags).port(port).pkeyIndex(pkeyIndex)
                .maxRdAtomic(ord).maxDestRdAtomic(ird).pathMtu(pathMtu).destQpNum(destQpNum).rqPsn(rqPsn)
                .sqPsn(sqPsn).minRnrTimer(minRnrTimer).timeout(timeout).retryCount(retryCount).rnrRetry(rnrRetry)
                .capabilities(qp.capabilities());
        a.mask(a.mask() & (mask | STATE));
        return QueryResults.sqDraining(a, false);
    }
}
