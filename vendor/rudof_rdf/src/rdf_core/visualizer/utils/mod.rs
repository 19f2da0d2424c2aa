mod usage_count;

pub use usage_count::UsageCount;
