"""Analytics: metrics of a merchant's payments, refunds and disputes, per time bucket and group."""

from mocksrv.domain.analytics.query import GRANULARITIES as GRANULARITIES
from mocksrv.domain.analytics.query import MetricsQuery as MetricsQuery
from mocksrv.domain.analytics.query import TimeWindow as TimeWindow
from mocksrv.domain.analytics.service import AnalyticsService as AnalyticsService
from mocksrv.domain.analytics.service import MetricsReport as MetricsReport
from mocksrv.domain.analytics.service import MetricsRow as MetricsRow
from mocksrv.domain.analytics.subjects import DISPUTE_SUBJECT as DISPUTE_SUBJECT
from mocksrv.domain.analytics.subjects import PAYMENT_SUBJECT as PAYMENT_SUBJECT
from mocksrv.domain.analytics.subjects import REFUND_SUBJECT as REFUND_SUBJECT
from mocksrv.domain.analytics.subjects import SUBJECTS as SUBJECTS
from mocksrv.domain.analytics.subjects import Subject as Subject
